package main

// The timeline leg: generated Job scenarios (restartkit's scenario format), played by the real Job
// controller (timeline.go) and by `restartkit simulate` (the simulate op, through `restartkit
// batch`); both timelines are reduced to Job-level events (Pods created, deleted, failed and
// succeeded per completion index; Job conditions with type, reason and message; the final
// counters and state) and must be equal, times included.

import (
	"encoding/json"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"regexp"
	"sort"
	"strings"
	"time"

	batchv1 "k8s.io/api/batch/v1"
)

var (
	flagTimelineN              = flag.Int("timeline-n", 300, "generated scenarios for the timeline leg (0: leg off)")
	flagTimelineOut            = flag.String("timeline-out", "", "write each disagreeing timeline scenario (JSON lines) to this file")
	flagTimelineFile           = flag.String("timeline-scenarios", "", "instead of generating, play these Job scenarios (JSON lines, restartkit's format)")
	flagTimelineBatch          = flag.Duration("timeline-batch", 0, "the Job controller's SyncJobBatchPeriod in the harness (upstream's is 1s; 0 compares exactly, see docs/oracle.md)")
	flagTimelineDump           = flag.String("timeline-dump", "", "write every timeline scenario with both reduced timelines (JSON lines) to this file")
	flagTimelineJobSetN        = flag.Int("timeline-jobset-n", 100, "generated JobSet scenarios for the timeline leg (real JobSet + Job controllers), after the Job scenarios")
	flagTimelineDisruption     = flag.Float64("timeline-disruption", 0.08, "in generated Job and JobSet scenarios, the probability that a scripted run (not a node loss) ends with the Pod preempted or evicted instead")
	flagTimelineJobSetNodeLoss = flag.Float64("timeline-jobset-nodeloss", 0.1, "in generated JobSet scenarios, the probability that a scripted run ends with its node lost (real node chain, timeline_nodeloss.go)")
	flagTimelineReplay         = flag.Bool("timeline-replay-all", false, "play every scenario upstream twice more and report each whose upstream timeline is not reproducible (UNSTABLE), agreeing or not: checks the harness's determinism")
)

type tlExit struct {
	Container     string  `json:"container,omitempty"`
	PodIndex      *int    `json:"podIndex,omitempty"`
	ReplicatedJob string  `json:"replicatedJob,omitempty"`
	JobIndex      *int    `json:"jobIndex,omitempty"`
	AfterSeconds  float64 `json:"afterSeconds"`
	ExitCode      int32   `json:"exitCode"`
	Times         *int    `json:"times,omitempty"`
	Reason        string  `json:"reason,omitempty"`
	NodeFailure   bool    `json:"nodeFailure,omitempty"`
	// Disruption: instead of exiting, the Pod is preempted (PreemptionByScheduler) or evicted
	// (EvictionByEvictionAPI) at this time (the harness does what the scheduler or the
	// Eviction API does: DisruptionTarget, then a graceful delete).
	Disruption string `json:"disruption,omitempty"`
}

type tlScenario struct {
	Kind                 string          `json:"kind"`
	Name                 string          `json:"name"`
	KubernetesVersion    string          `json:"kubernetesVersion"`
	RunFor               string          `json:"runFor"`
	StartupSeconds       float64         `json:"startupSeconds,omitempty"`
	PodRescheduleSeconds float64         `json:"podRescheduleSeconds,omitempty"`
	Exits                []tlExit        `json:"exits,omitempty"`
	MaxTimelineEvents    int             `json:"maxTimelineEvents,omitempty"`
	FeatureGates         map[string]bool `json:"featureGates,omitempty"`
	Workload             map[string]any  `json:"workload"`
	NodeLoss             *tlNodeLoss     `json:"nodeLoss,omitempty"`
	runForSeconds        float64
	family               string
}

// timelineScenario generates one Job scenario; family names what it exercises (counted per
// family in the run's summary).
//
// The families added after the first release (init containers) are drawn from extra, a stream
// of their own, after g's draws: a seed's scenarios stay as they were except where one is drawn.
func (g gen) timelineScenario(i int, extra gen) *tlScenario {
	indexed := g.chance(0.6)
	completions := 1 + g.r.IntN(4)
	parallelism := 1 + g.r.IntN(completions)
	if g.chance(0.1) {
		parallelism = completions + 1
	}
	spec := map[string]any{"completions": completions, "parallelism": parallelism}
	var fam []string
	if indexed {
		spec["completionMode"] = "Indexed"
		fam = append(fam, "Indexed")
	} else if g.chance(0.25) {
		// A work queue: no completions; done when any Pod succeeded and none is active.
		delete(spec, "completions")
		spec["parallelism"] = 1 + g.r.IntN(3)
		fam = append(fam, "NonIndexed(work queue)")
	} else {
		fam = append(fam, "NonIndexed")
	}
	perIndex := indexed && g.chance(0.3)
	if perIndex {
		spec["backoffLimitPerIndex"] = g.r.IntN(3)
		if g.chance(0.5) {
			spec["maxFailedIndexes"] = g.r.IntN(completions)
		}
		fam = append(fam, "backoffLimitPerIndex")
	} else if g.chance(0.8) {
		spec["backoffLimit"] = g.r.IntN(4)
		fam = append(fam, "backoffLimit")
	}
	hasPFP := g.chance(0.4)
	if hasPFP {
		var rules []any
		actions := []string{"FailJob", "Ignore", "Count"}
		if perIndex {
			actions = append(actions, "FailIndex")
		}
		for _, code := range []int{42, 3} {
			if g.chance(0.7) {
				a := actions[g.r.IntN(len(actions))]
				rules = append(rules, map[string]any{"action": a, "onExitCodes": map[string]any{"operator": "In", "values": []int{code}}})
				fam = append(fam, "podFailurePolicy:"+a)
			}
		}
		if g.chance(0.6) {
			a := actions[g.r.IntN(len(actions))]
			rules = append(rules, map[string]any{"action": a, "onPodConditions": []any{map[string]any{"type": "DisruptionTarget"}}})
			fam = append(fam, "podFailurePolicy:"+a)
		}
		if len(rules) == 0 {
			rules = append(rules, map[string]any{"action": "Ignore", "onPodConditions": []any{map[string]any{"type": "DisruptionTarget"}}})
		}
		spec["podFailurePolicy"] = map[string]any{"rules": rules}
	}
	switch g.r.IntN(4) {
	case 0:
		if !hasPFP {
			spec["podReplacementPolicy"] = "TerminatingOrFailed"
			fam = append(fam, "podReplacementPolicy:TerminatingOrFailed")
		}
	case 1:
		spec["podReplacementPolicy"] = "Failed"
		fam = append(fam, "podReplacementPolicy:Failed")
	}
	if g.chance(0.2) {
		spec["activeDeadlineSeconds"] = 30 + g.r.IntN(300)
		fam = append(fam, "activeDeadlineSeconds")
	}
	if indexed && g.chance(0.2) {
		rule := map[string]any{}
		if g.chance(0.5) {
			rule["succeededIndexes"] = "0"
		} else {
			rule["succeededCount"] = 1 + g.r.IntN(completions)
		}
		spec["successPolicy"] = map[string]any{"rules": []any{rule}}
		fam = append(fam, "successPolicy")
	}
	restartPolicy := "Never"
	if !hasPFP && g.chance(0.25) {
		restartPolicy = "OnFailure"
		fam = append(fam, "restartPolicy:OnFailure")
	}
	containers := []string{"main"}
	podSpec := map[string]any{"restartPolicy": restartPolicy,
		"containers": []any{map[string]any{"name": "main", "image": "busybox"}}}
	if g.chance(0.25) {
		containers = append(containers, "side")
		podSpec["containers"] = []any{map[string]any{"name": "main", "image": "busybox"}, map[string]any{"name": "side", "image": "busybox"}}
		fam = append(fam, "twoContainers")
	}
	if g.chance(0.6) {
		podSpec["terminationGracePeriodSeconds"] = g.pick(0, 5, 20, 45).(int)
		fam = append(fam, "gracePeriod")
	}
	spec["template"] = map[string]any{"spec": podSpec}
	codes := []int32{0, 0, 1, 1, 42, 3, 137}
	var exits []tlExit
	script1 := func(idx *int, ctr string) {
		exits = append(exits, g.exitScript(tlExit{Container: ctr, PodIndex: idx}, codes, 0.15, &fam)...)
	}
	// With two containers, a script each or (without a container) one both run.
	script := func(idx *int) {
		if len(containers) == 1 || g.chance(0.3) {
			script1(idx, "")
			return
		}
		for _, c := range containers {
			script1(idx, c)
		}
	}
	// Per completion index, or per slot of a NonIndexed Job (the harness's index, see there);
	// sometimes one script for every Pod.
	slots := completions
	if p, ok := spec["parallelism"].(int); ok && spec["completions"] == nil {
		slots = p
	}
	if g.chance(0.2) {
		script(nil)
	} else {
		for ix := 0; ix < slots; ix++ {
			if g.chance(0.85) {
				script(ptrTo(ix))
			}
		}
	}
	job := map[string]any{"apiVersion": "batch/v1", "kind": "Job",
		"metadata": map[string]any{"name": "job", "namespace": "default"}, "spec": spec}
	sc := &tlScenario{Kind: "Scenario", Name: fmt.Sprintf("timeline-%d", i), KubernetesVersion: minorVersion(k8sModule()),
		RunFor: "1800s", runForSeconds: 1800, Exits: exits, Workload: job}
	if g.chance(0.3) {
		sc.StartupSeconds = float64(g.pick(5, 20).(int))
		fam = append(fam, "startupSeconds")
	}
	if g.chance(0.3) {
		sc.PodRescheduleSeconds = float64(g.pick(10, 90).(int))
		fam = append(fam, "podRescheduleSeconds")
	}
	if extra.chance(0.25) {
		// Init containers that complete as soon as they run, or sidecars (restartable init
		// containers) that run until the Pod ends: the Pod's containers start after each of
		// them has (startupSeconds each, as restartkit models it). The scripts then name the
		// regular containers, so that none applies to an init container or sidecar.
		var inits []any
		for k := 0; k <= extra.r.IntN(2); k++ {
			c := map[string]any{"name": fmt.Sprintf("init%d", k), "image": "busybox"}
			if extra.chance(0.5) {
				// A sidecar: runs from its start until the Pod ends.
				c["restartPolicy"] = "Always"
				fam = append(fam, "sidecar")
			}
			inits = append(inits, c)
		}
		podSpec["initContainers"] = inits
		var named []tlExit
		for _, e := range exits {
			if e.Container != "" {
				named = append(named, e)
				continue
			}
			for _, c := range containers {
				e.Container = c
				named = append(named, e)
			}
		}
		sc.Exits = named
		fam = append(fam, fmt.Sprintf("initContainers:%d", len(inits)))
	}
	// JobManagedBy against its default now and then, where the release lets it be set: with it
	// on, the API server checks the Job's status transitions (up to 1.35 it refuses the status
	// the controller writes while its back-off holds a replacement back with a Pod ready).
	if gate := "JobManagedBy"; extra.chance(0.15) && settableGate(gate) {
		sc.FeatureGates = map[string]bool{gate: !releaseDefaults[gate]}
		fam = append(fam, "JobManagedBy")
	}
	sc.family = strings.Join(dedupe(fam), ",")
	return sc
}

func dedupe(xs []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, x := range xs {
		if !seen[x] {
			seen[x] = true
			out = append(out, x)
		}
	}
	return out
}

// upstreamJob is the scenario's Job as the API server stores it: v1 defaulting, PrepareForCreate
// (the generated selector and labels), validated; an invalid Job is skipped (restartkit refuses
// it, as its own tests check).
func upstreamJob(sc *tlScenario) (*batchv1.Job, error) {
	w := map[string]any{}
	for k, v := range sc.Workload {
		w[k] = v
	}
	meta := map[string]any{"uid": "job-uid"}
	for k, v := range sc.Workload["metadata"].(map[string]any) {
		meta[k] = v
	}
	w["metadata"] = meta
	internal, job, err := admitJob(mustJSON(w))
	if err != nil {
		return nil, err
	}
	if errs := jobValidate(internal); len(errs) > 0 {
		return nil, fmt.Errorf("invalid Job: %s", errs[0].Type)
	}
	return job, nil
}

// askKubeletCurve asks restartkit for the CrashLoopBackOff figures of the pinned release: the
// harness's kubelet restarts OnFailure containers as restartkit's kubelet does.
func askKubeletCurve() error {
	resps, _, err := runBatch([][]byte{mustJSON(map[string]any{"op": "backoff", "input": map[string]any{
		"component": "kubelet", "restarts": 2, "kubernetesVersion": minorVersion(k8sModule())}})}, false)
	if err != nil {
		return err
	}
	var r struct{ InitialSeconds, MaxSeconds, ResetAfterRunSeconds float64 }
	if resps[0].Status != "ok" || json.Unmarshal(resps[0].Result, &r) != nil || r.InitialSeconds <= 0 {
		return fmt.Errorf("restartkit's backoff op: %s %s", resps[0].Result, resps[0].Errors)
	}
	sec := func(f float64) time.Duration { return time.Duration(f * float64(time.Second)) }
	kubeletCurve.initial, kubeletCurve.max, kubeletCurve.resetAfterRun = sec(r.InitialSeconds), sec(r.MaxSeconds), sec(r.ResetAfterRunSeconds)
	return nil
}

// simulateAll runs scenarios through restartkit's simulate op in one batch: each answer's result,
// or why restartkit refused the scenario (then its result is empty).
func simulateAll[S any](scs []S) ([]json.RawMessage, []string, error) {
	reqs := make([][]byte, len(scs))
	for i, sc := range scs {
		reqs[i] = mustJSON(map[string]any{"op": "simulate", "input": map[string]any{"scenario": sc}})
	}
	resps, _, err := runBatch(reqs, false)
	if err != nil {
		return nil, nil, err
	}
	results := make([]json.RawMessage, len(scs))
	errs := make([]string, len(scs))
	for i, r := range resps {
		if r.Status != "ok" {
			errs[i] = "restartkit refused the scenario: " + string(r.Errors)
			continue
		}
		results[i] = r.Result
	}
	return results, errs, nil
}

// restartkitTimelines runs the scenarios through the simulate op and reduces each answer.
func restartkitTimelines(scs []*tlScenario) ([]tlOutcome, []string, error) {
	results, errs, err := simulateAll(scs)
	if err != nil {
		return nil, nil, err
	}
	outs := make([]tlOutcome, len(scs))
	for i, result := range results {
		if errs[i] != "" {
			continue
		}
		var run struct {
			Timeline []struct {
				T        float64 `json:"t"`
				Object   string  `json:"object"`
				Event    string  `json:"event"`
				Reason   string  `json:"reason"`
				Message  *string `json:"message"`
				PodIndex *int    `json:"podIndex"`
			} `json:"timeline"`
			Summary struct{ TimelineTruncated bool } `json:"summary"`
			Jobs    []struct {
				Phase     string `json:"phase"`
				Failed    int32  `json:"failed"`
				Succeeded int32  `json:"succeeded"`
			} `json:"jobs"`
			JobSet *struct {
				Phase                   string `json:"phase"`
				Restarts                int32  `json:"restarts"`
				RestartsCountTowardsMax int32  `json:"restartsCountTowardsMax"`
			} `json:"jobset"`
		}
		if err := json.Unmarshal(result, &run); err != nil {
			return nil, nil, err
		}
		var o tlOutcome
		isJobSet := run.JobSet != nil
		// A Pod's Job, in JobSet scenarios: restartkit names a Job's Pods <job>-<index>-<n>.
		jobOfPod := func(obj string) string {
			if !isJobSet {
				return ""
			}
			name := obj[strings.LastIndex(obj, "/")+1:]
			for k := 0; k < 2; k++ {
				if c := strings.LastIndex(name, "-"); c > 0 {
					name = name[:c]
				}
			}
			return name
		}
		jobName := func(obj string) string {
			if !isJobSet {
				return ""
			}
			return obj[strings.LastIndex(obj, "/")+1:]
		}
		for _, e := range run.Timeline {
			ix := ""
			if e.PodIndex != nil {
				ix = fmt.Sprint(*e.PodIndex)
			}
			msg := ""
			if e.Message != nil {
				msg = *e.Message
			}
			switch {
			case strings.HasPrefix(e.Object, "pod/"):
				j := jobOfPod(e.Object)
				switch e.Event {
				case "Scheduled":
					o.Events = append(o.Events, tlEvent{T: e.T, Event: "PodCreated", Job: j, Index: ix})
				case "Failed":
					o.Events = append(o.Events, tlEvent{T: e.T, Event: "PodFailed", Job: j, Index: ix})
					if e.Reason == "DeletionByPodGC" || e.Reason == "TerminatingOutOfService" {
						// Pod GC failed the Pod of a lost node (timeline_nodeloss.go).
						o.Events = append(o.Events, tlEvent{T: e.T, Event: "PodGC", Job: j, Index: ix, Reason: e.Reason})
					}
				case "NodeLost", "NodeNotReady":
					o.Events = append(o.Events, tlEvent{T: e.T, Event: e.Event, Job: j, Index: ix})
				case "Tainted":
					// The unreachable taint (the out-of-service one is the scenario's, not compared).
					if e.Reason == "node.kubernetes.io/unreachable" {
						o.Events = append(o.Events, tlEvent{T: e.T, Event: "Tainted", Job: j, Index: ix})
					}
				case "Evicted", "Preempted":
					ev := "Evicted"
					if e.Reason == "PreemptionByScheduler" || e.Reason == "EvictionByEvictionAPI" {
						ev = "Disrupted"
					}
					o.Events = append(o.Events, tlEvent{T: e.T, Event: ev, Job: j, Index: ix, Reason: e.Reason})
				case "Succeeded":
					o.Events = append(o.Events, tlEvent{T: e.T, Event: "PodSucceeded", Job: j, Index: ix})
				case "Deleted":
					o.Events = append(o.Events, tlEvent{T: e.T, Event: "PodDeleted", Job: j, Index: ix})
				}
			case strings.HasPrefix(e.Object, "job/"):
				j := jobName(e.Object)
				switch e.Event {
				case "FailureTarget", "Failed", "SuccessCriteriaMet", "Complete":
					o.Events = append(o.Events, tlEvent{T: e.T, Event: "Condition", Job: j, Type: e.Event, Reason: e.Reason, Msg: msg})
				case "Created":
					if isJobSet {
						// The message gives the Job's restart-attempt label.
						o.Events = append(o.Events, tlEvent{T: e.T, Event: "JobCreated", Job: j, Index: msg[strings.LastIndex(msg, "=")+1:]})
					}
				case "Deleted":
					o.Events = append(o.Events, tlEvent{T: e.T, Event: "JobDeleted", Job: j})
				case "Gone":
					o.Events = append(o.Events, tlEvent{T: e.T, Event: "JobGone", Job: j})
				case "SyncError":
					// A sync whose status update the API server refuses (up to 1.35). Its Job
					// orders the refusals of one instant (syncs of different Jobs at one
					// instant run in no order either side can be held to).
					o.Events = append(o.Events, tlEvent{T: e.T, Event: "SyncError", Job: j, Msg: msg})
				}
			case strings.HasPrefix(e.Object, "jobset/"):
				switch e.Event {
				case "Restarting", "Failed", "Completed":
					o.Events = append(o.Events, tlEvent{T: e.T, Event: "JobSet", Type: e.Event, Reason: e.Reason, Msg: msg})
				case "RestartJob", "RestartJobAndIgnoreMaxRestarts":
					// Upstream's status says only that a Job's restart counter went up.
					o.Events = append(o.Events, tlEvent{T: e.T, Event: "JobSet", Type: "RestartJob"})
				}
			}
		}
		if isJobSet {
			// The JobSet's counters stand in the Job counters' place: status.restarts and
			// restartsCountTowardsMax.
			o.Final, o.Failed, o.Succeeded = run.JobSet.Phase, run.JobSet.Restarts, run.JobSet.RestartsCountTowardsMax
		} else if len(run.Jobs) == 1 {
			o.Failed, o.Succeeded = run.Jobs[0].Failed, run.Jobs[0].Succeeded
			o.Final = run.Jobs[0].Phase
		}
		outs[i] = o
	}
	return outs, errs, nil
}

var tlEventOrder = map[string]int{"PodFailed": 0, "PodSucceeded": 1, "Condition": 2, "JobSet": 3, "JobDeleted": 4, "PodDeleted": 5,
	"JobGone": 6, "JobCreated": 7, "PodCreated": 8, "SyncError": 9,
	// a lost node's chain (timeline_nodeloss.go)
	"NodeLost": 10, "NodeNotReady": 11, "Tainted": 12, "Evicted": 13, "PodGC": 14,
	// a preemption or an eviction through the Eviction API
	"Disrupted": 15}

// canonical orders one side's events for the comparison: by time, then kind, index, condition.
// Within one instant the order of Pod events is not a fact either side can be held to (the
// controller creates and deletes Pods from goroutines); up to the Job's final condition.
func canonical(o tlOutcome) tlOutcome {
	evs := append([]tlEvent(nil), o.Events...)
	// A JobSet's end: what happens after its final condition (in the order it happened: both
	// sides record causally) is not compared — restartkit stops there, upstream's controller
	// goes on to delete the Jobs, and the other Jobs' syncs of that instant race with it.
	for i, e := range evs {
		if e.Event == "JobSet" && (e.Type == "Failed" || e.Type == "Completed") {
			evs = evs[:i+1]
			break
		}
	}
	sort.SliceStable(evs, func(i, j int) bool {
		a, b := evs[i], evs[j]
		if a.T != b.T {
			return a.T < b.T
		}
		if tlEventOrder[a.Event] != tlEventOrder[b.Event] {
			return tlEventOrder[a.Event] < tlEventOrder[b.Event]
		}
		if a.Job != b.Job {
			return a.Job < b.Job
		}
		if a.Index != b.Index {
			return a.Index < b.Index
		}
		if a.Type != b.Type {
			return a.Type < b.Type
		}
		return a.Reason < b.Reason
	})
	cut := len(evs)
	jobsetRun := false
	for _, e := range evs {
		jobsetRun = jobsetRun || e.Event == "JobSet" || e.Event == "JobCreated"
	}
	for i, e := range evs {
		if !jobsetRun && e.Event == "Condition" && (e.Type == "Failed" || e.Type == "Complete") {
			cut = i + 1
			for cut < len(evs) && evs[cut].T == e.T {
				cut++
			}
			break
		}
	}
	o.Events = evs[:cut]
	type instant struct {
		t   float64
		job string
	}
	failedAt := map[instant]int{}
	for _, e := range o.Events {
		if e.Event == "PodFailed" {
			failedAt[instant{e.T, e.Job}]++
		}
	}
	for i, e := range o.Events {
		o.Events[i].Msg = podNameInMessage.ReplaceAllString(e.Msg, "pod <pod>")
		// Several Pods failed at this instant: the controller's message is about whichever of
		// them its informer lists first (a map's order), so any of theirs is upstream's.
		if e.Event == "Condition" && e.Reason == "PodFailurePolicy" && failedAt[instant{e.T, e.Job}] > 1 {
			o.Events[i].Msg = "<the message of one of the Pods that failed at this instant>"
		}
	}
	return o
}

// podNameInMessage finds the Pod a podFailurePolicy message names. Names differ by design
// (upstream's carry a random suffix), and when several Pods fail at one instant the controller
// names whichever its informer lists first (a map's order): the Pod's name is left out of the
// comparison, the rest of the message is compared.
var podNameInMessage = regexp.MustCompile(`(?i)pod ([a-z0-9-]+/)?[a-z0-9-]+`)

func (e tlEvent) String() string {
	s := fmt.Sprintf("t=%g %s", e.T, e.Event)
	if e.Job != "" {
		s += " " + e.Job
	}
	if e.Index != "" {
		s += "[" + e.Index + "]"
	}
	if e.Type != "" {
		s += fmt.Sprintf(" %s/%s %q", e.Type, e.Reason, e.Msg)
	} else if e.Reason != "" {
		s += " " + e.Reason
	} else if e.Msg != "" {
		s += " " + e.Msg
	}
	return s
}

// firstDifference describes where two reduced timelines part, or "" when they agree.
func firstDifference(up, rk tlOutcome) string {
	n := len(up.Events)
	if len(rk.Events) > n {
		n = len(rk.Events)
	}
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
	if up.Final != rk.Final || up.Failed != rk.Failed || up.Succeeded != rk.Succeeded {
		return fmt.Sprintf("final: upstream %s failed=%d succeeded=%d, restartkit %s failed=%d succeeded=%d",
			up.Final, up.Failed, up.Succeeded, rk.Final, rk.Failed, rk.Succeeded)
	}
	return ""
}

// runTimeline is the leg: n scenarios; it returns (cases, disagreements).
// timelineSetup readies the Job controller's harness for a run of scenarios.
func timelineSetup() error {
	if err := setGates(nil); err != nil {
		return err
	}
	// The harness's informers are fed synchronously after every write, so they are never behind
	// the clientset; the controller's staleness check reads the informer's last-synced
	// resourceVersion, which these informers do not keep: off (docs/oracle.md).
	if err := setTimelineGates(); err != nil {
		return err
	}
	// restartkit's controllers react at the instant of a Pod event; the real Job controller
	// batches Pod events for SyncJobBatchPeriod (1 s) before it syncs. The harness sets the batch
	// period to 0 so that every other timing is compared exactly (docs/oracle.md, docs/simulation.md).
	setSyncJobBatchPeriod(*flagTimelineBatch)
	return askKubeletCurve()
}

func runTimeline(n int, seed uint64) (int, int, error) {
	if err := timelineSetup(); err != nil {
		return 0, 0, err
	}
	g := gen{rand.New(rand.NewPCG(seed, 0x74696d65))}
	// The families added later draw from a stream of their own (jobsetTimelineScenario).
	extra := gen{rand.New(rand.NewPCG(seed, 0x66616d73))}
	var scs []*tlScenario
	var ups []tlOutcome
	skipped, harnessErrors := 0, 0
	var given []*tlScenario
	if *flagTimelineFile != "" {
		b, err := os.ReadFile(*flagTimelineFile)
		if err != nil {
			return 0, 0, err
		}
		for i, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
			var sc tlScenario
			if err := json.Unmarshal([]byte(line), &sc); err != nil {
				return 0, 0, fmt.Errorf("%s:%d: %v", *flagTimelineFile, i+1, err)
			}
			secs, err := time.ParseDuration(sc.RunFor)
			if err != nil {
				return 0, 0, fmt.Errorf("%s:%d: runFor: %v", *flagTimelineFile, i+1, err)
			}
			sc.runForSeconds, sc.family = secs.Seconds(), "given"
			if sc.KubernetesVersion == "" {
				sc.KubernetesVersion = minorVersion(k8sModule())
			}
			if sc.Name == "" {
				sc.Name = fmt.Sprintf("%s:%d", *flagTimelineFile, i+1)
			}
			given = append(given, &sc)
		}
		n = len(given)
	}
	total := n
	if given == nil {
		total += *flagTimelineJobSetN + *flagTimelineNodeLossN
	}
	// The node-loss family draws from a stream of its own.
	nodeLossGen := gen{rand.New(rand.NewPCG(seed, 0x6e6f6465))}
	// A JobSet scenario's nodeLoss block and tolerations draw from a stream of their own too.
	jobsetNodeLossGen := gen{rand.New(rand.NewPCG(seed, 0x6a736e6c))}
	// And its restart strategy, added later, from a fourth.
	jobsetStrategyGen := gen{rand.New(rand.NewPCG(seed, 0x6a737273))}
	// Disruptions (issue 42), added after both families, from a fifth stream of their own.
	disruptionGen := gen{rand.New(rand.NewPCG(seed, 0x64697372))}
	upStart := time.Now()
	for i := 0; i < total; i++ {
		var sc *tlScenario
		switch {
		case given != nil:
			sc = given[i]
		case i < n:
			sc = g.timelineScenario(i, extra)
			disruptionGen.disrupt(sc)
		case i < n+*flagTimelineJobSetN:
			sc = g.jobsetTimelineScenario(i-n, extra, jobsetNodeLossGen, &jobsetStrategyGen)
			disruptionGen.disrupt(sc)
		default:
			sc = nodeLossGen.nodeLossTimelineScenario(i - n - *flagTimelineJobSetN)
		}
		up, refused, err := playUpstream(sc)
		if err != nil && refused {
			skipReasons["timeline: "+err.Error()]++
			skipped++
			continue
		}
		if err != nil {
			// A harness failure is reported as such, never counted as agreement.
			fmt.Printf("HARNESS %s: %v\n", sc.Name, err)
			harnessErrors++
			continue
		}
		scs = append(scs, sc)
		ups = append(ups, up)
	}
	upTime := time.Since(upStart)
	rkStart := time.Now()
	rks, rkErrs, err := restartkitTimelines(scs)
	if err != nil {
		return 0, 0, err
	}
	rkTime := time.Since(rkStart)
	var out *os.File
	if *flagTimelineOut != "" {
		if out, err = os.Create(*flagTimelineOut); err != nil {
			return 0, 0, err
		}
		defer out.Close()
	}
	var dump *os.File
	if *flagTimelineDump != "" {
		if dump, err = os.Create(*flagTimelineDump); err != nil {
			return 0, 0, err
		}
		defer dump.Close()
	}
	disagreements, unstable := 0, 0
	perFamily := map[string][2]int{}
	// With a batch period, how much later upstream's final condition comes than restartkit's.
	var lateMax float64
	lateN := 0
	for i, sc := range scs {
		diff := rkErrs[i]
		if diff == "" {
			diff = firstDifference(canonical(ups[i]), canonical(rks[i]))
		}
		for _, f := range strings.Split(sc.family, ",") {
			c := perFamily[f]
			c[0]++
			if diff != "" {
				c[1]++
			}
			perFamily[f] = c
		}
		if *flagTimelineBatch > 0 {
			u, r := canonical(ups[i]), canonical(rks[i])
			if len(u.Events) > 0 && len(r.Events) > 0 && u.Final == r.Final && u.Final != "Running" {
				d := u.Events[len(u.Events)-1].T - r.Events[len(r.Events)-1].T
				lateN++
				if d > lateMax {
					lateMax = d
				}
			}
		}
		if dump != nil {
			dump.Write(append(mustJSON(map[string]any{"scenario": sc, "difference": diff,
				"upstream": canonical(ups[i]), "restartkit": canonical(rks[i])}), '\n'))
		}
		if diff == "" && *flagTimelineReplay && upstreamUnstable(sc, ups[i], 2) {
			// Agreeing once is no verdict either when upstream's timeline is not reproducible.
			unstable++
			fmt.Printf("UNSTABLE %s: upstream's replays of this scenario differ from its first run (it agreed on the first); not counted\n  scenario: %s\n", sc.Name, mustJSON(sc))
			continue
		}
		if diff == "" {
			continue
		}
		// A disagreement counts only when upstream's own timeline is reproducible: the harness
		// replays the scenario; if a replay differs from the first run, upstream (or the harness)
		// was not deterministic here and the scenario is reported as unstable, not as a verdict.
		if rkErrs[i] == "" && upstreamUnstable(sc, ups[i], timelineReplays) {
			unstable++
			fmt.Printf("UNSTABLE %s: upstream's replays of this scenario differ from its first run; not counted\n  scenario: %s\n", sc.Name, mustJSON(sc))
			continue
		}
		disagreements++
		if disagreements <= 20 {
			fmt.Printf("DISAGREE %s: %s\n  scenario: %s\n", sc.Name, diff, mustJSON(sc))
			fmt.Printf("  upstream:   %v\n  restartkit: %v\n", canonical(ups[i]).Events, canonical(rks[i]).Events)
		}
		if out != nil {
			out.Write(append(mustJSON(map[string]any{"scenario": sc, "difference": diff,
				"upstream": canonical(ups[i]), "restartkit": canonical(rks[i])}), '\n'))
		}
	}
	fams := make([]string, 0, len(perFamily))
	for f := range perFamily {
		fams = append(fams, f)
	}
	sort.Strings(fams)
	if *flagTimelineBatch > 0 {
		fmt.Printf("timeline: with SyncJobBatchPeriod %v, upstream's final condition is at most %gs after restartkit's (%d finished scenarios)\n", *flagTimelineBatch, lateMax, lateN)
	}
	fmt.Printf("timeline(Job and JobSet controllers): %d scenarios, %d disagreements (upstream %.1fs, restartkit %.1fs)",
		len(scs), disagreements, upTime.Seconds(), rkTime.Seconds())
	if skipped > 0 {
		fmt.Printf(" (%d generated Jobs upstream refuses, skipped)", skipped)
	}
	if unstable > 0 {
		fmt.Printf(" (%d unstable upstream: replays differ, listed above)", unstable)
	}
	fmt.Println()
	for _, f := range fams {
		fmt.Printf("  %-42s %5d scenarios, %d disagreements\n", f, perFamily[f][0], perFamily[f][1])
	}
	if nlLateNodes > 0 {
		fmt.Printf("  (node loss: %d Nodes added between two lease renewals, the free pool having run out; %d of them lost before their first renewal, where the monitor sees the node later than restartkit's contract says)\n", nlLateNodes, nlLateLosses)
	}
	if harnessErrors > 0 {
		return len(scs), disagreements + harnessErrors, fmt.Errorf("%d timeline scenarios failed in the harness", harnessErrors)
	}
	return len(scs), disagreements, nil
}

// playUpstream runs one scenario against the real controllers. refused: the workload itself was
// refused by upstream's validation (a skip, not a harness failure).
func playUpstream(sc *tlScenario) (up tlOutcome, refused bool, err error) {
	return playUpstreamObserved(sc, nil)
}

// playUpstreamObserved: playUpstream with the harness's onGap hook.
func playUpstreamObserved(sc *tlScenario, onGap func(h *tlHarness, until time.Time)) (up tlOutcome, refused bool, err error) {
	// The scenario's gates (RestartJob for the JobSet controller), with the harness's own.
	gates := map[string]bool{"StaleControllerConsistencyJob": false, "NodeControllerLeaseCircuitBreaker": false}
	for k, v := range sc.FeatureGates {
		gates[k] = v
	}
	if err := setGates(onlyKnown(gates)); err != nil {
		return up, false, err
	}
	if kind, _ := sc.Workload["kind"].(string); kind == "JobSet" {
		js, err := upstreamJobSet(sc)
		if err != nil {
			return up, true, err
		}
		up, err = runUpstreamJobSetTimeline(sc, js, onGap)
		return up, false, err
	}
	job, err := upstreamJob(sc)
	if err != nil {
		return up, true, err
	}
	up, err = runUpstreamTimeline(sc, job, onGap)
	return up, false, err
}

// timelineReplays is how many times a disagreeing scenario is played again upstream.
const timelineReplays = 3

// upstreamUnstable replays a scenario upstream and tells whether any replay's timeline differs
// from the first run's.
func upstreamUnstable(sc *tlScenario, first tlOutcome, replays int) bool {
	want := mustJSON(canonical(first))
	for r := 0; r < replays; r++ {
		again, _, err := playUpstream(sc)
		if err != nil || string(mustJSON(canonical(again))) != string(want) {
			return true
		}
	}
	return false
}

// exitScript draws one to three exits at the place `at` names (a container, a Pod index, a
// replicated Job's Job): each 5 to 120 s after the previous, with a code from codes or, with
// probability nodeFailure, a node failure; every exit but the last repeats once or twice.
func (g gen) exitScript(at tlExit, codes []int32, nodeFailure float64, fam *[]string) []tlExit {
	var exits []tlExit
	steps := 1 + g.r.IntN(3)
	for s := 0; s < steps; s++ {
		e := at
		e.AfterSeconds = float64(5 + 5*g.r.IntN(24))
		e.ExitCode = codes[g.r.IntN(len(codes))]
		if g.chance(nodeFailure) {
			e.NodeFailure, e.ExitCode = true, 137
			*fam = append(*fam, "nodeFailure")
		}
		if s < steps-1 {
			e.Times = ptrTo(1 + g.r.IntN(2))
		}
		exits = append(exits, e)
	}
	return exits
}

// disrupt turns some scripted runs of a generated scenario (probability -timeline-disruption
// each, none that loses its node) into a preemption or an eviction, family
// disruption:<reason>. Drawn after the scenario, from a stream of its own, so that the rest of
// the scenario is as the seed gave it before.
func (g gen) disrupt(sc *tlScenario) {
	var fam []string
	for k := range sc.Exits {
		if sc.Exits[k].NodeFailure || !g.chance(*flagTimelineDisruption) {
			continue
		}
		sc.Exits[k].Disruption = g.pick("PreemptionByScheduler", "EvictionByEvictionAPI").(string)
		fam = append(fam, "disruption:"+sc.Exits[k].Disruption)
	}
	if len(fam) > 0 {
		sc.family += "," + strings.Join(dedupe(fam), ",")
	}
}
