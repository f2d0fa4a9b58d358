package main

// The Pod timeline leg: generated bare-Pod scenarios (restartkit's scenario format) played by
// the real kubelet runtime manager over the fake CRI (podtimeline.go) and by `restartkit
// simulate` (the simulate op, through `restartkit batch`). Both timelines are reduced to what
// both sides state: container starts, scripted exits (with the exit code), CrashLoopBackOff
// refusals (with the back-off), RestartAllContainers resets and the Pod's terminal phase, at
// millisecond precision in a canonical order within an instant; then the final phase and every
// container's restart count.

import (
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"sort"
	"strconv"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	kubeletconfigv1beta1 "k8s.io/kubelet/config/v1beta1"
	kubeletconfiginternal "k8s.io/kubernetes/pkg/kubelet/apis/config"
	kubeletconfigvalidation "k8s.io/kubernetes/pkg/kubelet/apis/config/validation"
	podregistry "k8s.io/kubernetes/pkg/registry/core/pod"
)

var (
	flagPodN      = flag.Int("timeline-pod-n", 0, "generated Pod scenarios for the Pod timeline leg (real kubelet runtime manager over the fake CRI; 0: leg off)")
	flagPodOut    = flag.String("timeline-pod-out", "", "write each disagreeing Pod scenario (JSON lines) to this file")
	flagPodDump   = flag.String("timeline-pod-dump", "", "write every Pod scenario with both reduced timelines (JSON lines) to this file")
	flagPodFile   = flag.String("timeline-pod-scenarios", "", "instead of generating, play these Pod scenarios (JSON lines, restartkit's format, or lines of -timeline-pod-out)")
	flagPodGCWake = flag.Bool("timeline-pod-gc-wake", true, "the Pod harness also syncs at the housekeeping instant at which the back-off's garbage collection drops an entry (false: only at changes and back-off expiries; the GC still runs every 2 s)")
	flagPodPick   = flag.String("timeline-pod-pick", "", "play only these generated scenarios (comma-separated numbers, e.g. 806,1011: pod-timeline-806 …)")
)

type podScenario struct {
	Kind              string          `json:"kind"`
	Name              string          `json:"name"`
	KubernetesVersion string          `json:"kubernetesVersion"`
	RunFor            string          `json:"runFor"`
	Exits             []tlExit        `json:"exits,omitempty"`
	FeatureGates      map[string]bool `json:"featureGates,omitempty"`
	KubeletConfig     map[string]any  `json:"kubeletConfig,omitempty"`
	MaxTimelineEvents int             `json:"maxTimelineEvents,omitempty"`
	Workload          map[string]any  `json:"workload"`
	runForSeconds     float64
	family            string
}

// podEvent is one Pod-level event as both sides are reduced to.
type podEvent struct {
	T         float64 `json:"t"`
	Event     string  `json:"event"` // Started, Exited, BackOff, RestartAllContainers, Phase; upstream also Killed (not compared)
	Container string  `json:"container,omitempty"`
	Detail    string  `json:"detail,omitempty"` // exit code, back-off seconds, phase
}

type podOutcome struct {
	Events   []podEvent       `json:"events"`
	Phase    string           `json:"phase"`
	Restarts map[string]int32 `json:"restartCounts"`
}

// podTimelineScenario draws one Pod scenario for the linked release: 1-4 regular containers,
// 0-3 init containers and 0-2 sidecars (interleaved), the Pod's restartPolicy, container
// restartPolicy and restartPolicyRules where the release has ContainerRestartRules,
// RestartAllContainers where it has RestartAllContainersOnContainerExits, KEP-4603's gates and
// maxContainerRestartPeriod, and scripted exits of every container (crash loops of 0-5 s runs,
// runs of 5-120 s and of 300-900 s, which cross the 10-minute reset and the back-off's garbage
// collection).
func (g gen) podTimelineScenario(i int) *podScenario {
	var fam []string
	gates := map[string]bool{}
	// gate: draw a gate's value where the release lets it be set.
	setGate := func(name string, on bool) bool {
		if !settableGate(name) {
			return false
		}
		gates[name] = on
		return true
	}
	policy := g.pick("Always", "OnFailure", "Never").(string)
	fam = append(fam, "restartPolicy:"+policy)
	rules := false
	if knownGates["ContainerRestartRules"] && g.chance(0.5) {
		if releaseDefaults["ContainerRestartRules"] || setGate("ContainerRestartRules", true) {
			rules = true
		}
	}
	restartAll := false
	if rules && knownGates["RestartAllContainersOnContainerExits"] && g.chance(0.3) {
		if releaseDefaults["RestartAllContainersOnContainerExits"] || setGate("RestartAllContainersOnContainerExits", true) {
			if knownGates["NodeDeclaredFeatures"] && !releaseDefaults["NodeDeclaredFeatures"] {
				setGate("NodeDeclaredFeatures", true)
			}
			restartAll = true
		}
	}
	codes := []int32{0, 1, 3, 42, 137}
	rule := func(restartAllOK bool) []any {
		action := "Restart"
		if restartAllOK && restartAll && g.chance(0.5) {
			action = "RestartAllContainers"
			fam = append(fam, "RestartAllContainers")
		}
		op := g.pick("In", "NotIn").(string)
		vals := g.pick([]int{42}, []int{1, 3}, []int{3, 42, 137}).([]int)
		if action == "RestartAllContainers" {
			// Only failures: a reset on exit 0 of a container that exits at once (an init
			// container) resets the Pod at the same instant for ever (no back-off applies).
			op = "In"
		}
		return []any{map[string]any{"action": action, "exitCodes": map[string]any{"operator": op, "values": vals}}}
	}
	var containers, inits []any
	var names []string
	nInit, nSide := g.r.IntN(4), g.r.IntN(3)
	kinds := make([]string, 0, nInit+nSide)
	for k := 0; k < nInit; k++ {
		kinds = append(kinds, "init")
	}
	for k := 0; k < nSide; k++ {
		kinds = append(kinds, "side")
	}
	g.r.Shuffle(len(kinds), func(a, b int) { kinds[a], kinds[b] = kinds[b], kinds[a] })
	ni, ns := 0, 0
	for _, k := range kinds {
		c := map[string]any{"image": "busybox:1.36"}
		if k == "init" {
			c["name"] = fmt.Sprintf("init%d", ni)
			ni++
			if rules && g.chance(0.2) {
				c["restartPolicy"] = g.pick("OnFailure", "Never").(string)
				fam = append(fam, "initRestartPolicy")
				if g.chance(0.5) {
					c["restartPolicyRules"] = rule(true)
					fam = append(fam, "restartPolicyRules")
				}
			}
		} else {
			c["name"] = fmt.Sprintf("side%d", ns)
			ns++
			c["restartPolicy"] = "Always"
		}
		names = append(names, c["name"].(string))
		inits = append(inits, c)
	}
	if nInit > 0 {
		fam = append(fam, fmt.Sprintf("initContainers:%d", nInit))
	}
	if nSide > 0 {
		fam = append(fam, fmt.Sprintf("sidecars:%d", nSide))
	}
	nReg := 1 + g.r.IntN(4)
	for k := 0; k < nReg; k++ {
		c := map[string]any{"name": fmt.Sprintf("c%d", k), "image": "busybox:1.36"}
		if rules && g.chance(0.4) {
			c["restartPolicy"] = g.pick("Always", "OnFailure", "Never").(string)
			fam = append(fam, "containerRestartPolicy")
			if g.chance(0.6) {
				c["restartPolicyRules"] = rule(true)
				fam = append(fam, "restartPolicyRules")
			}
		}
		names = append(names, c["name"].(string))
		containers = append(containers, c)
	}
	spec := map[string]any{"restartPolicy": policy, "containers": containers}
	if len(inits) > 0 {
		spec["initContainers"] = inits
	}
	pod := map[string]any{"apiVersion": "v1", "kind": "Pod",
		"metadata": map[string]any{"name": "web", "namespace": "default"}, "spec": spec}
	// KEP-4603.
	if knownGates["ReduceDefaultCrashLoopBackOffDecay"] && g.chance(0.3) && setGate("ReduceDefaultCrashLoopBackOffDecay", !releaseDefaults["ReduceDefaultCrashLoopBackOffDecay"]) {
		fam = append(fam, "ReduceDefaultCrashLoopBackOffDecay")
	}
	sc := &podScenario{Kind: "Scenario", Name: fmt.Sprintf("pod-timeline-%d", i), KubernetesVersion: minorVersion(k8sModule()), Workload: pod,
		MaxTimelineEvents: 1000000}
	maxOn := releaseDefaults["KubeletCrashLoopBackOffMax"]
	if knownGates["KubeletCrashLoopBackOffMax"] && g.chance(0.3) && setGate("KubeletCrashLoopBackOffMax", !maxOn) {
		maxOn = !maxOn
		fam = append(fam, "KubeletCrashLoopBackOffMax")
	}
	if maxOn && g.chance(0.5) {
		sc.KubeletConfig = map[string]any{"apiVersion": "kubelet.config.k8s.io/v1beta1", "kind": "KubeletConfiguration",
			"crashLoopBackOff": map[string]any{"maxContainerRestartPeriod": g.pick("1s", "5s", "10s", "30s", "60s", "300s").(string)}}
		fam = append(fam, "maxContainerRestartPeriod")
	}
	if len(gates) > 0 {
		sc.FeatureGates = gates
	}
	// Scripts.
	for _, n := range names {
		if !g.chance(0.75) {
			continue
		}
		steps := 1 + g.r.IntN(3)
		for s := 0; s < steps; s++ {
			e := tlExit{Container: n, ExitCode: codes[g.r.IntN(len(codes))]}
			switch g.r.IntN(4) {
			case 0:
				e.AfterSeconds = float64(g.r.IntN(6))
				e.Times = ptrTo(1 + g.r.IntN(6))
				fam = append(fam, "crashLoop")
			case 1:
				e.AfterSeconds = float64(300 + g.r.IntN(601))
				e.Times = ptrTo(1 + g.r.IntN(3))
				fam = append(fam, "longRuns")
			default:
				e.AfterSeconds = float64(5 + g.r.IntN(116))
				e.Times = ptrTo(1 + g.r.IntN(3))
			}
			if s == steps-1 && g.chance(0.3) {
				e.Times = nil // every run from here on
				// Runs of 0 s for ever that end in a RestartAllContainers reset never leave
				// their instant (no back-off applies to a reset; restartkit refuses such a
				// scenario with no-progress): every run lasts at least 1 s.
				if e.AfterSeconds == 0 {
					e.AfterSeconds = 1
				}
			}
			sc.Exits = append(sc.Exits, e)
		}
	}
	minutes := 30 + g.r.IntN(31)
	sc.RunFor = fmt.Sprintf("%dm", minutes)
	sc.runForSeconds = float64(minutes * 60)
	sc.family = strings.Join(dedupe(fam), ",")
	return sc
}

// upstreamPodOf: the scenario's Pod as the API server stores it (defaulting, PrepareForCreate),
// validated with the scenario's gates; refused: skipped.
func upstreamPodOf(sc *podScenario) (*corev1.Pod, error) {
	internal, pod, err := admitPod(mustJSON(sc.Workload))
	if err != nil {
		return nil, err
	}
	if errs := podregistry.Strategy.Validate(ctxNS(), internal); len(errs) > 0 {
		return nil, fmt.Errorf("invalid Pod: %s %s", errs[0].Field, errs[0].Type)
	}
	return pod, nil
}

// podCrashLoop: the kubelet's CrashLoopBackOff (maximum, initial) for the scenario's
// configuration and gates: newCrashLoopBackOff (crashloop*.go) on the KubeletConfiguration as the
// kubelet loads it (v1beta1 defaulting, conversion, validation).
func podCrashLoop(sc *podScenario) (time.Duration, time.Duration, error) {
	ext := &kubeletconfigv1beta1.KubeletConfiguration{}
	if sc.KubeletConfig != nil {
		if err := json.Unmarshal(mustJSON(sc.KubeletConfig), ext); err != nil {
			return 0, 0, err
		}
	}
	ext.CgroupDriver, ext.ContainerRuntimeEndpoint = "systemd", "unix:///run/containerd/containerd.sock"
	kubeletScheme.Default(ext)
	cfg := &kubeletconfiginternal.KubeletConfiguration{}
	if err := kubeletScheme.Convert(ext, cfg, nil); err != nil {
		return 0, 0, err
	}
	cfg.FailCgroupV1 = false
	if err := kubeletconfigvalidation.ValidateKubeletConfiguration(cfg, utilfeature.DefaultFeatureGate); err != nil {
		return 0, 0, fmt.Errorf("the kubelet refuses the configuration: %v", err)
	}
	boMax, initial := crashLoopBackOff(cfg)
	return boMax, initial, nil
}

// playUpstreamPod: refused = the Pod or the kubelet configuration is refused upstream (skip).
func playUpstreamPod(sc *podScenario) (out podOutcome, refused bool, err error) {
	return playUpstreamPodObserved(sc, nil)
}

// playUpstreamPodObserved: playUpstreamPod with the harness's onGap hook.
func playUpstreamPodObserved(sc *podScenario, onGap func(h *podHarness, until time.Time)) (out podOutcome, refused bool, err error) {
	// The gates the generator draws beyond setGates' own: back to the release's default first.
	gates := map[string]bool{"NodeDeclaredFeatures": releaseDefaults["NodeDeclaredFeatures"]}
	for k, v := range sc.FeatureGates {
		gates[k] = v
	}
	if err := setGates(onlyKnown(gates)); err != nil {
		return out, true, err
	}
	pod, err := upstreamPodOf(sc)
	if err != nil {
		return out, true, err
	}
	boMax, initial, err := podCrashLoop(sc)
	if err != nil {
		return out, true, err
	}
	out, err = runUpstreamPod(sc, pod, boMax, initial, onGap)
	return out, false, err
}

// restartkitPodTimelines runs the scenarios through the simulate op and reduces each answer.
func restartkitPodTimelines(scs []*podScenario) ([]podOutcome, []string, error) {
	results, errs, err := simulateAll(scs)
	if err != nil {
		return nil, nil, err
	}
	outs := make([]podOutcome, len(scs))
	for i, result := range results {
		if errs[i] != "" {
			continue
		}
		var run struct {
			Timeline []struct {
				T         float64 `json:"t"`
				Object    string  `json:"object"`
				Container string  `json:"container"`
				Event     string  `json:"event"`
				Reason    string  `json:"reason"`
				Message   *string `json:"message"`
			} `json:"timeline"`
			Summary struct {
				TimelineTruncated bool `json:"timelineTruncated"`
			} `json:"summary"`
			Pods []struct {
				Phase      string `json:"phase"`
				Containers []struct {
					Name         string `json:"name"`
					RestartCount int32  `json:"restartCount"`
				} `json:"containers"`
			} `json:"pods"`
		}
		if err := json.Unmarshal(result, &run); err != nil {
			return nil, nil, err
		}
		if run.Summary.TimelineTruncated {
			errs[i] = "restartkit's timeline was truncated"
			continue
		}
		var o podOutcome
		for _, e := range run.Timeline {
			msg := ""
			if e.Message != nil {
				msg = *e.Message
			}
			switch e.Event {
			case "Started":
				o.Events = append(o.Events, podEvent{T: e.T, Event: "Started", Container: e.Container})
			case "Terminated":
				o.Events = append(o.Events, podEvent{T: e.T, Event: "Exited", Container: e.Container, Detail: strings.TrimPrefix(msg, "exit code ")})
			case "BackOff":
				d := strings.TrimPrefix(msg, "back-off ")
				if k := strings.Index(d, "s "); k > 0 {
					d = d[:k]
				}
				o.Events = append(o.Events, podEvent{T: e.T, Event: "BackOff", Container: e.Container, Detail: d})
			case "RestartAllContainers":
				o.Events = append(o.Events, podEvent{T: e.T, Event: "RestartAllContainers"})
			case "Succeeded", "Failed":
				if e.Container == "" {
					o.Events = append(o.Events, podEvent{T: e.T, Event: "Phase", Detail: e.Event})
				}
			}
		}
		if len(run.Pods) == 1 {
			o.Phase = run.Pods[0].Phase
			o.Restarts = map[string]int32{}
			for _, c := range run.Pods[0].Containers {
				o.Restarts[c.Name] = c.RestartCount
			}
		}
		outs[i] = o
	}
	return outs, errs, nil
}

var podEventOrder = map[string]int{"Exited": 0, "BackOff": 1, "RestartAllContainers": 2, "Started": 3, "Phase": 4}

// canonicalPod: millisecond times; within an instant in a fixed order (kind, container,
// detail): the order of one instant's events is the order of the kubelet's loops, which
// restartkit does not restate; only the terminal phases of the Pod (restartkit records no
// Pending/Running transitions); nothing after the Pod's terminal phase (the kubelet then kills
// what still runs: restartkit records no such kills).
func canonicalPod(o podOutcome) podOutcome {
	var evs []podEvent
	for _, e := range o.Events {
		if e.Event == "Killed" || (e.Event == "Phase" && e.Detail != "Succeeded" && e.Detail != "Failed") {
			continue
		}
		e.T = math.Round(e.T*1000) / 1000
		if e.Event == "BackOff" {
			if f, err := strconv.ParseFloat(e.Detail, 64); err == nil {
				e.Detail = strconv.FormatFloat(f, 'f', -1, 64)
			}
		}
		evs = append(evs, e)
	}
	sort.SliceStable(evs, func(i, j int) bool {
		a, b := evs[i], evs[j]
		if a.T != b.T {
			return a.T < b.T
		}
		if podEventOrder[a.Event] != podEventOrder[b.Event] {
			return podEventOrder[a.Event] < podEventOrder[b.Event]
		}
		if a.Container != b.Container {
			return a.Container < b.Container
		}
		return a.Detail < b.Detail
	})
	for i, e := range evs {
		if e.Event == "Phase" {
			evs = evs[:i+1]
			break
		}
	}
	o.Events = evs
	return o
}

func (e podEvent) String() string {
	s := fmt.Sprintf("t=%g %s", e.T, e.Event)
	if e.Container != "" {
		s += " " + e.Container
	}
	if e.Detail != "" {
		s += " " + e.Detail
	}
	return s
}

func firstPodDifference(up, rk podOutcome) string {
	n := max(len(up.Events), len(rk.Events))
	for i := 0; i < n; i++ {
		var u, r string
		if i < len(up.Events) {
			u = up.Events[i].String()
		}
		if i < len(rk.Events) {
			r = rk.Events[i].String()
		}
		if u != r {
			return fmt.Sprintf("event %d: upstream %q, restartkit %q", i, u, r)
		}
	}
	if up.Phase != rk.Phase {
		return fmt.Sprintf("final phase: upstream %s, restartkit %s", up.Phase, rk.Phase)
	}
	names := map[string]bool{}
	for k := range up.Restarts {
		names[k] = true
	}
	for k := range rk.Restarts {
		names[k] = true
	}
	var ks []string
	for k := range names {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	for _, k := range ks {
		u, uok := up.Restarts[k]
		r, rok := rk.Restarts[k]
		if u != r || uok != rok {
			return fmt.Sprintf("final restartCount of %s: upstream %d, restartkit %d", k, u, r)
		}
	}
	return ""
}

// runPodTimeline is the leg: n scenarios (or the given file's); it returns (cases, disagreements).
func runPodTimeline(n int, seed uint64) (int, int, error) {
	if err := podSmoke(); err != nil {
		return 0, 0, err
	}
	g := gen{rand.New(rand.NewPCG(seed, 0x706f6473))}
	var given []*podScenario
	if *flagPodFile != "" {
		b, err := os.ReadFile(*flagPodFile)
		if err != nil {
			return 0, 0, err
		}
		for i, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
			var w struct {
				Scenario *podScenario `json:"scenario"`
			}
			var sc podScenario
			if err := json.Unmarshal([]byte(line), &w); err == nil && w.Scenario != nil {
				sc = *w.Scenario
			} else if err := json.Unmarshal([]byte(line), &sc); err != nil {
				return 0, 0, fmt.Errorf("%s:%d: %v", *flagPodFile, i+1, err)
			}
			secs, err := time.ParseDuration(sc.RunFor)
			if err != nil {
				return 0, 0, fmt.Errorf("%s:%d: runFor: %v", *flagPodFile, i+1, err)
			}
			sc.runForSeconds, sc.family = secs.Seconds(), "given"
			if sc.KubernetesVersion == "" {
				sc.KubernetesVersion = minorVersion(k8sModule())
			}
			if sc.Name == "" {
				sc.Name = fmt.Sprintf("%s:%d", *flagPodFile, i+1)
			}
			given = append(given, &sc)
		}
		n = len(given)
	}
	var scs []*podScenario
	var ups []podOutcome
	skipped, harnessErrors := 0, 0
	upStart := time.Now()
	for i := 0; i < n; i++ {
		var sc *podScenario
		if given != nil {
			sc = given[i]
		} else {
			sc = g.podTimelineScenario(i)
			if *flagPodPick != "" && !strings.Contains(","+*flagPodPick+",", ","+strconv.Itoa(i)+",") {
				continue
			}
		}
		up, refused, err := playUpstreamPod(sc)
		if err != nil && refused {
			skipReasons["timeline(Pod): "+err.Error()]++
			skipped++
			continue
		}
		if err != nil {
			fmt.Printf("HARNESS %s: %v\n  scenario: %s\n", sc.Name, err, mustJSON(sc))
			harnessErrors++
			continue
		}
		scs = append(scs, sc)
		ups = append(ups, up)
	}
	upTime := time.Since(upStart)
	rkStart := time.Now()
	rks, rkErrs, err := restartkitPodTimelines(scs)
	if err != nil {
		return 0, 0, err
	}
	rkTime := time.Since(rkStart)
	open := func(path string) (*os.File, error) {
		if path == "" {
			return nil, nil
		}
		return os.Create(path)
	}
	out, err := open(*flagPodOut)
	if err != nil {
		return 0, 0, err
	}
	dump, err := open(*flagPodDump)
	if err != nil {
		return 0, 0, err
	}
	disagreements := 0
	perFamily := map[string][2]int{}
	for i, sc := range scs {
		u, r := canonicalPod(ups[i]), canonicalPod(rks[i])
		diff := rkErrs[i]
		if diff == "" {
			diff = firstPodDifference(u, r)
		}
		for _, f := range strings.Split(sc.family, ",") {
			c := perFamily[f]
			c[0]++
			if diff != "" {
				c[1]++
			}
			perFamily[f] = c
		}
		line := append(mustJSON(map[string]any{"scenario": sc, "difference": diff, "upstream": u, "restartkit": r}), '\n')
		if dump != nil {
			dump.Write(line)
		}
		if diff == "" {
			continue
		}
		disagreements++
		if disagreements <= 10 {
			fmt.Printf("DISAGREE %s: %s\n  scenario: %s\n", sc.Name, diff, mustJSON(sc))
		}
		if out != nil {
			out.Write(line)
		}
	}
	if out != nil {
		out.Close()
	}
	if dump != nil {
		dump.Close()
	}
	fmt.Printf("timeline(Pod, real kubelet): %d scenarios, %d disagreements (upstream %.1fs, restartkit %.1fs)",
		len(scs), disagreements, upTime.Seconds(), rkTime.Seconds())
	if skipped > 0 {
		fmt.Printf(" (%d generated Pods or kubelet configurations upstream refuses, skipped)", skipped)
	}
	fmt.Println()
	fams := make([]string, 0, len(perFamily))
	for f := range perFamily {
		fams = append(fams, f)
	}
	sort.Strings(fams)
	for _, f := range fams {
		fmt.Printf("  %-42s %5d scenarios, %d disagreements\n", f, perFamily[f][0], perFamily[f][1])
	}
	if harnessErrors > 0 {
		return len(scs), disagreements + harnessErrors, fmt.Errorf("%d Pod timeline scenarios failed in the harness", harnessErrors)
	}
	return len(scs), disagreements, nil
}

// podSmoke plays one fixed scenario upstream and checks the timeline the kubelet's code is known
// to give it at every minor (an init container, a sidecar, a container that crash-loops: restarts
// at once, then after 10, 20 and 40 s): the harness pulls unexported functions by name, and a
// signature that does not match upstream's is no build error but a wrong (or crashing) run.
func podSmoke() error {
	sc := &podScenario{Kind: "Scenario", Name: "pod-smoke", RunFor: "2m", runForSeconds: 120,
		Exits: []tlExit{{Container: "c0", AfterSeconds: 1, ExitCode: 1, Times: ptrTo(4)}},
		Workload: map[string]any{"apiVersion": "v1", "kind": "Pod", "metadata": map[string]any{"name": "web", "namespace": "default"},
			"spec": map[string]any{"restartPolicy": "Always",
				"initContainers": []any{map[string]any{"name": "init0", "image": "busybox:1.36"},
					map[string]any{"name": "side0", "image": "busybox:1.36", "restartPolicy": "Always"}},
				"containers": []any{map[string]any{"name": "c0", "image": "busybox:1.36"}}}}}
	if settableGate("ReduceDefaultCrashLoopBackOffDecay") {
		sc.FeatureGates = map[string]bool{"ReduceDefaultCrashLoopBackOffDecay": false}
	}
	up, _, err := playUpstreamPod(sc)
	if err != nil {
		return fmt.Errorf("the Pod leg's smoke scenario: %w", err)
	}
	var got []string
	for _, e := range canonicalPod(up).Events {
		got = append(got, e.String())
	}
	want := []string{"t=0 Exited init0 0", "t=0 Started c0", "t=0 Started init0", "t=0 Started side0",
		"t=1 Exited c0 1", "t=1 Started c0", "t=2 Exited c0 1", "t=2 BackOff c0 10", "t=12 Started c0",
		"t=13 Exited c0 1", "t=13 BackOff c0 20", "t=33 Started c0", "t=34 Exited c0 1", "t=34 BackOff c0 40", "t=74 Started c0"}
	if strings.Join(got, "; ") != strings.Join(want, "; ") || up.Phase != "Running" || up.Restarts["c0"] != 4 {
		return fmt.Errorf("the Pod leg's smoke scenario: the harness gives %q (phase %s, restarts %v), the kubelet's code gives %q (Running, c0 restarted 4 times)",
			got, up.Phase, up.Restarts, want)
	}
	return nil
}
