package main

// The explain leg, Pod family (issue 41 item 4): the Pod timeline leg's scenarios play on the
// real kubelet code (podtimeline.go); at random instants of the run the Pod is snapshotted as the
// API server returns it (the status the kubelet's status manager wrote); `restartkit explain`
// reads the snapshot with --now at that instant, and its predictions are compared with what the
// kubelet's code then does:
//   - a container explain says restarts next: it starts again exactly at next_restart_at;
//   - a container that has terminated and that explain says does not restart: it does not start
//     again.
// A prediction is conditional on nothing else happening first: when any container exits between
// the snapshot and the predicted instant (which can fail the Pod or restart all its containers),
// or the instant is past the run's end, it is not compared (counted apart).
//
// explain cannot see the kubelet's in-memory back-off; it says so and assumes every earlier run
// of the container crashed within 600 s. Where the history behind a snapshot breaks that stated
// assumption (an earlier run of 600 s or more, which resets or drops the kubelet's entry), the
// leg checks that explain stated it and does not compare the instant (counted apart).

import (
	"encoding/json"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"sort"
	"strings"
	"time"
)

var (
	flagExplainPodN   = flag.Int("explain-pod-n", 0, "snapshots for the explain leg's Pod family (the Pod timeline scenarios on the real kubelet, snapshotted at random instants; 0: leg off)")
	flagExplainPodOut = flag.String("explain-pod-out", "", "write each disagreeing snapshot (JSON lines) to this file")
)

// podSnapshot is the Pod at one instant of an upstream run, and the run's events up to then.
type podSnapshot struct {
	sc     *podScenario
	at     time.Time
	pod    json.RawMessage
	before int        // out.Events[:before] happened at or before `at`
	out    podOutcome // the run's whole outcome
}

func (s podSnapshot) scenarioName() string   { return s.sc.Name }
func (s podSnapshot) scenarioFamily() string { return s.sc.family }
func (s podSnapshot) instant() time.Time     { return s.at }
func (s podSnapshot) record() map[string]any {
	return map[string]any{"scenario": s.sc, "snapshot": s.pod, "upstream": s.out}
}
func (s podSnapshot) input() map[string]any {
	in := explainInput(s.pod, s.sc.KubernetesVersion, s.at, s.sc.FeatureGates)
	if s.sc.KubeletConfig != nil {
		in["kubeletConfig"] = s.sc.KubeletConfig
	}
	return in
}

// explainedContainer is what the leg reads of explain's answer for one container.
type explainedContainer struct {
	Name             string    `json:"name"`
	RestartCount     int32     `json:"restartCount"`
	LastTermination  *struct{} `json:"lastTermination"`
	CrashLoopBackOff *struct {
		NextRestartAt       *string `json:"nextRestartAt"`
		NextRestartLatestAt *string `json:"nextRestartLatestAt"`
	} `json:"crashLoopBackOff"`
}

type explainedPods struct {
	Workloads []struct {
		Pods []struct {
			Name       string               `json:"name"`
			Containers []explainedContainer `json:"containers"`
			Notes      []string             `json:"notes"`
		} `json:"pods"`
	} `json:"workloads"`
}

// podRuns: the container's runs (start, exit instants in seconds) among events; a run that has
// not ended has exit -1.
func podRuns(events []podEvent, ctr string) [][2]float64 {
	var runs [][2]float64
	for _, e := range events {
		if e.Container != ctr {
			continue
		}
		switch e.Event {
		case "Started":
			runs = append(runs, [2]float64{e.T, -1})
		case "Exited", "Killed":
			if n := len(runs); n > 0 && runs[n-1][1] < 0 {
				runs[n-1][1] = e.T
			}
		}
	}
	return runs
}

// explainPodVerdict compares explain's answer for one snapshot with the run's events after it:
// "" (agrees), or the difference; compared/apart count the predictions compared and set apart.
func explainPodVerdict(s podSnapshot, raw json.RawMessage) (diff string, compared, apart int) {
	out := s.out
	var ex explainedPods
	if err := json.Unmarshal(raw, &ex); err != nil {
		return "explain's answer does not read: " + err.Error(), 0, 0
	}
	var ctrs []explainedContainer
	var notes []string
	for _, w := range ex.Workloads {
		for _, p := range w.Pods {
			ctrs = append(ctrs, p.Containers...)
			notes = append(notes, p.Notes...)
		}
	}
	if len(ctrs) == 0 {
		return "explain gave no container", 0, 0
	}
	t := s.at.Sub(tlEpoch).Seconds()
	end := s.sc.runForSeconds
	after := out.Events[s.before:]
	// The first exit of any container after the snapshot: from there on nothing is predicted.
	firstExit := end + 1
	for _, e := range after {
		if e.Event == "Exited" && e.T > t {
			firstExit = e.T
			break
		}
	}
	for _, c := range ctrs {
		if c.LastTermination == nil {
			continue // never ended: its first start is no restart, nothing is predicted
		}
		restart := -1.0
		for _, e := range after {
			if e.Container == c.Name && e.Event == "Started" && e.T > t {
				restart = e.T
				break
			}
		}
		// The stated assumption: each restart came within 600 s of the one before (the back-off
		// entry is made at the first restart and updated at each one after; 600 s after its
		// last update the kubelet forgets it).
		runs := podRuns(out.Events[:s.before], c.Name)
		met := true
		for i := 2; i < len(runs); i++ {
			if runs[i][0]-runs[i-1][0] >= 600 {
				met = false
			}
		}
		// And no RestartAllContainers reset before the snapshot: its starts count in
		// restartCount, not in the back-off.
		reset := false
		for _, e := range out.Events[:s.before] {
			if e.Event == "RestartAllContainers" {
				met, reset = false, true
			}
		}
		// No instant: not restarted before something else happens (up to 1.36, a regular
		// container held for the Pod's last sidecar that is not restarted).
		if c.CrashLoopBackOff == nil || c.CrashLoopBackOff.NextRestartAt == nil {
			if restart >= 0 && restart < firstExit {
				return fmt.Sprintf("container %s: explain says it is not restarted, the kubelet started it at t=%gs (snapshot t=%gs)", c.Name, restart, t), compared, apart
			}
			compared++
			continue
		}
		at, err := time.Parse(time.RFC3339, *c.CrashLoopBackOff.NextRestartAt)
		if err != nil {
			return fmt.Sprintf("container %s: nextRestartAt %q: %v", c.Name, *c.CrashLoopBackOff.NextRestartAt, err), compared, apart
		}
		predicted := at.Sub(tlEpoch).Seconds()
		if !met {
			stated := false
			for _, n := range notes {
				if strings.Contains(n, fmt.Sprintf("container %q", c.Name)) && strings.Contains(n, "came within 600 s of the one before") &&
					(!reset || strings.Contains(n, "none was a RestartAllContainers reset")) {
					stated = true
				}
			}
			if !stated {
				return fmt.Sprintf("container %s: an earlier run lasted 600 s or more and explain does not say what it assumed", c.Name), compared, apart
			}
			apart++
			continue
		}
		if predicted > end || firstExit <= predicted {
			apart++
			continue
		}
		// A wait ended by the garbage collection: after the earliest instant, by the latest.
		if l := c.CrashLoopBackOff.NextRestartLatestAt; l != nil {
			latest, err := time.Parse(time.RFC3339, *l)
			if err != nil {
				return fmt.Sprintf("container %s: nextRestartLatestAt %q: %v", c.Name, *l, err), compared, apart
			}
			hi := latest.Sub(tlEpoch).Seconds()
			if firstExit <= hi || hi > end {
				apart++
				continue
			}
			if restart <= predicted || restart > hi {
				return fmt.Sprintf("container %s: explain says the kubelet restarts it after t=%gs and by t=%gs, the kubelet's code restarted it at t=%gs (snapshot t=%gs; -1: not before the next exit)", c.Name, predicted, hi, restart, t), compared, apart
			}
			compared++
			continue
		}
		if restart != predicted {
			return fmt.Sprintf("container %s: explain says the kubelet restarts it at t=%gs, the kubelet's code restarted it at t=%gs (snapshot t=%gs; -1: not before the next exit)", c.Name, predicted, restart, t), compared, apart
		}
		compared++
	}
	return "", compared, apart
}

// runExplainPod: the Pod family of the explain leg, until n snapshots.
func runExplainPod(n int, seed uint64) (int, int, error) {
	g := gen{rand.New(rand.NewPCG(seed, 0x65787064))}
	pick := rand.New(rand.NewPCG(seed, 0x736e6170))
	var snaps []podSnapshot
	upStart := time.Now()
	for i := 0; len(snaps) < n && i < 50*n+100; i++ {
		sc := g.podTimelineScenario(i)
		sc.Name = fmt.Sprintf("explain-pod-%d", i)
		var taken []podSnapshot
		// About three snapshots a run: each gap between the instants the kubelet acts at is
		// picked with a chance that falls as snapshots are taken.
		onGap := func(h *podHarness, until time.Time) {
			if len(taken) >= 4 || pick.Float64() > 0.12 {
				return
			}
			now := h.clk.Now()
			span := int64(until.Sub(now) / time.Second)
			at := now
			if span > 1 {
				at = now.Add(time.Duration(pick.Int64N(span)) * time.Second)
			}
			pod := h.pod.DeepCopy()
			pod.TypeMeta.APIVersion, pod.TypeMeta.Kind = "v1", "Pod"
			taken = append(taken, podSnapshot{sc: sc, at: at, pod: mustJSON(pod), before: len(h.out.Events)})
		}
		out, refused, err := playUpstreamPodObserved(sc, onGap)
		if err != nil && refused {
			skipReasons["explain(Pod): "+err.Error()]++
			continue
		}
		if err != nil {
			return 0, 0, fmt.Errorf("%s: the harness: %v", sc.Name, err)
		}
		for _, s := range taken {
			s.out = out
			snaps = append(snaps, s)
		}
	}
	upTime := time.Since(upStart)
	t, err := explainSnapshots(snaps, *flagExplainPodOut, explainPodVerdict)
	if err != nil {
		return 0, 0, err
	}
	fmt.Printf("explain(Pod, real kubelet): %d snapshots, %d disagreements; %d predictions compared, %d set apart (another exit first, past the run, or a history that breaks what explain says it assumed) (upstream %.1fs, restartkit %.1fs)\n",
		len(snaps), t.disagreements, t.compared, t.apart, upTime.Seconds(), t.rkTime.Seconds())
	t.perFamily.print("snapshots")
	return len(snaps), t.disagreements, nil
}

// familyCounts counts a leg's cases and disagreements per family (a case's families: its
// comma-separated family string).
type familyCounts map[string][2]int

func (fc familyCounts) add(families string, disagrees bool) {
	for _, f := range strings.Split(families, ",") {
		c := fc[f]
		c[0]++
		if disagrees {
			c[1]++
		}
		fc[f] = c
	}
}

// print lists the families in order, each with its count of `what` and its disagreements.
func (fc familyCounts) print(what string) {
	fams := make([]string, 0, len(fc))
	for f := range fc {
		fams = append(fams, f)
	}
	sort.Strings(fams)
	for _, f := range fams {
		fmt.Printf("  %-42s %5d %s, %d disagreements\n", f, fc[f][0], what, fc[f][1])
	}
}

// jsonLines writes one JSON value a line; a nil one writes nothing.
type jsonLines struct{ f *os.File }

func newJSONLines(path string) (*jsonLines, error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	return &jsonLines{f}, nil
}

func (j *jsonLines) write(v any) {
	if j != nil {
		j.f.Write(append(mustJSON(v), '\n'))
	}
}

func (j *jsonLines) close() {
	if j != nil {
		j.f.Close()
	}
}
