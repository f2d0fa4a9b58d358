package main

// The explain leg, JobSet family (issue 41 item 4): the JobSet timeline leg's scenarios play on
// the real JobSet and Job controllers (timeline_jobset.go); at random instants the JobSet, its
// Jobs and their Pods are taken as the API server stores them, `restartkit explain` reads them
// with --now at that instant, and its answer for "the next BackoffLimitExceeded failure of a
// Job of this replicatedJob" (nextFailure) is compared with what the JobSet controller did at
// the next such failure:
//   - jobsetFails: the JobSet's Failed condition;
//   - jobsetRestarts: a JobSet restart (status.restarts goes up);
//   - action RestartJob or RestartJobAndIgnoreMaxRestarts: that Job's restart counter goes up;
//   - otherwise: none of these before the next Job failure.
// Set apart: a JobSet that is not Running at the snapshot, a next Job failure of another reason,
// several Jobs failing at the same instant (the controller reads them together), and a run that
// ends before any Job fails.

import (
	"encoding/json"
	"flag"
	"fmt"
	"math/rand/v2"
	"strings"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
)

var (
	flagExplainJobSetN   = flag.Int("explain-jobset-n", 0, "snapshots for the explain leg's JobSet family (the JobSet timeline scenarios on the real JobSet and Job controllers, snapshotted at random instants; 0: leg off)")
	flagExplainJobSetOut = flag.String("explain-jobset-out", "", "write each disagreeing JobSet snapshot (JSON lines) to this file")
)

type nextFailureExplained struct {
	ReplicatedJob  string  `json:"replicatedJob"`
	Action         *string `json:"action"`
	JobsetFails    bool    `json:"jobsetFails"`
	JobsetRestarts bool    `json:"jobsetRestarts"`
}

type jobsetExplained struct {
	Phase       string                 `json:"phase"`
	NextFailure []nextFailureExplained `json:"nextFailure"`
}

type explainedJobSets struct {
	Workloads []struct {
		Kind   string           `json:"kind"`
		JobSet *jobsetExplained `json:"jobset"`
	} `json:"workloads"`
}

// snapshotJobSet: the JobSet as the API server stores it, with its Jobs and Pods.
func snapshotJobSet(h *tlHarness) (json.RawMessage, error) {
	// The controller's copy carries no type: the API server's does.
	js := map[string]any{"apiVersion": "jobset.x-k8s.io/v1alpha2", "kind": "JobSet"}
	for k, v := range h.js.cur {
		if k != "apiVersion" && k != "kind" {
			js[k] = v
		}
	}
	items := []any{js}
	jl, err := h.client.Tracker().List(jobsGVR, batchv1.SchemeGroupVersion.WithKind("Job"), "")
	if err != nil {
		return nil, err
	}
	for _, j := range jl.(*batchv1.JobList).Items {
		j.APIVersion, j.Kind = "batch/v1", "Job"
		items = append(items, j)
	}
	pl, err := h.client.Tracker().List(podsGVR, corev1.SchemeGroupVersion.WithKind("Pod"), "")
	if err != nil {
		return nil, err
	}
	for _, p := range pl.(*corev1.PodList).Items {
		p.APIVersion, p.Kind = "v1", "Pod"
		items = append(items, p)
	}
	return mustJSON(map[string]any{"apiVersion": "v1", "kind": "List", "items": items}), nil
}

// replicatedJobOf: the replicatedJob a child Job's name ("<jobset>-<replicatedJob>-<index>")
// belongs to, among the given names (the longest that fits).
func replicatedJobOf(jobset, job string, names []string) string {
	best := ""
	for _, n := range names {
		prefix := jobset + "-" + n + "-"
		rest, ok := strings.CutPrefix(job, prefix)
		if !ok || rest == "" || strings.Trim(rest, "0123456789") != "" {
			continue
		}
		if len(n) > len(best) {
			best = n
		}
	}
	return best
}

// explainJobSetVerdict compares explain's answer for one snapshot with the run after it:
// compared is 1 when the next Job failure was compared.
func explainJobSetVerdict(s jobSnapshot, raw json.RawMessage) (diff string, compared, apart int) {
	out := s.out
	var ex explainedJobSets
	if err := json.Unmarshal(raw, &ex); err != nil {
		return "explain's answer does not read: " + err.Error(), 0, 0
	}
	var js *jobsetExplained
	for _, w := range ex.Workloads {
		if w.Kind == "JobSet" && w.JobSet != nil {
			js = w.JobSet
		}
	}
	if js == nil {
		return "explain found no JobSet in the snapshot", 0, 0
	}
	if js.Phase != "Running" {
		return "", 0, 1
	}
	meta, _ := s.sc.Workload["metadata"].(map[string]any)
	name, _ := meta["name"].(string)
	names := make([]string, 0, len(js.NextFailure))
	for _, n := range js.NextFailure {
		names = append(names, n.ReplicatedJob)
	}
	t := s.at.Sub(tlEpoch).Seconds()
	after := out.Events[s.before:]
	// The next child Job failure after the snapshot.
	k := -1
	for i, e := range after {
		if e.T > t && e.Event == "Condition" && e.Job != "" && e.Type == string(batchv1.JobFailed) {
			k = i
			break
		}
	}
	if k < 0 {
		return "", 0, 1
	}
	failure := after[k]
	for i, e := range after {
		if i != k && e.T == failure.T && e.Event == "Condition" && e.Job != "" && e.Type == string(batchv1.JobFailed) {
			return "", 0, 1 // several Jobs fail at once
		}
	}
	if failure.Reason != "BackoffLimitExceeded" {
		return "", 0, 1
	}
	rj := replicatedJobOf(name, failure.Job, names)
	var want *nextFailureExplained
	for i := range js.NextFailure {
		if js.NextFailure[i].ReplicatedJob == rj {
			want = &js.NextFailure[i]
		}
	}
	if want == nil {
		return fmt.Sprintf("the Job %s that failed belongs to no replicatedJob explain names (%v)", failure.Job, names), 0, 0
	}
	// What the JobSet controller did: the first JobSet event after the failure, before the next
	// Job failure.
	got := "nothing"
	for _, e := range after[k+1:] {
		if e.Event == "Condition" && e.Job != "" && e.Type == string(batchv1.JobFailed) {
			break
		}
		if e.Event != "JobSet" {
			continue
		}
		if e.Type == "Failed" || e.Type == "Restarting" || e.Type == "RestartJob" {
			got = e.Type
			break
		}
	}
	predicted := "nothing"
	switch {
	case want.JobsetFails:
		predicted = "Failed"
	case want.JobsetRestarts:
		predicted = "Restarting"
	case want.Action != nil && (*want.Action == "RestartJob" || *want.Action == "RestartJobAndIgnoreMaxRestarts"):
		// Both restart the failed Job alone (its counter in replicatedJobsStatus goes up).
		predicted = "RestartJob"
	}
	if got != predicted {
		action := "none"
		if want.Action != nil {
			action = *want.Action
		}
		return fmt.Sprintf("replicatedJob %s: explain says its next BackoffLimitExceeded failure (action %s) gives %s; the JobSet controller gave %s when %s failed at t=%gs (snapshot t=%gs)",
			rj, action, predicted, got, failure.Job, failure.T, t), 0, 0
	}
	jobsetOutcomesCompared[predicted]++
	return "", 1, 0
}

// jobsetOutcomesCompared counts the compared next failures by what the JobSet controller did.
var jobsetOutcomesCompared = map[string]int{}

// runExplainJobSet: the JobSet family of the explain leg, until n snapshots.
func runExplainJobSet(n int, seed uint64) (int, int, error) {
	if err := timelineSetup(); err != nil {
		return 0, 0, err
	}
	g := gen{rand.New(rand.NewPCG(seed, 0x65786a73))}
	extra := gen{rand.New(rand.NewPCG(seed, 0x65786a78))}
	nodeLoss := gen{rand.New(rand.NewPCG(seed, 0x65786a6e))}
	pick := rand.New(rand.NewPCG(seed, 0x736e6173))
	var snaps []jobSnapshot
	harnessErrors := 0
	upStart := time.Now()
	for i := 0; len(snaps) < n && i < 50*n+100; i++ {
		sc := g.jobsetTimelineScenario(i, extra, nodeLoss, nil)
		sc.Name = fmt.Sprintf("explain-jobset-%d", i)
		var taken []jobSnapshot
		var snapErr error
		onGap := func(h *tlHarness, until time.Time) {
			if h.js == nil || h.js.cur == nil || len(taken) >= 4 || pick.Float64() > 0.15 {
				return
			}
			now := h.clock.Now()
			at := now
			if span := int64(until.Sub(now) / time.Second); span > 1 {
				at = now.Add(time.Duration(pick.Int64N(span)) * time.Second)
			}
			objs, err := snapshotJobSet(h)
			if err != nil {
				snapErr = err
				return
			}
			taken = append(taken, jobSnapshot{sc: sc, at: at, objects: objs, before: len(h.out.Events)})
		}
		out, refused, err := playUpstreamObserved(sc, onGap)
		if err != nil && refused {
			skipReasons["explain(JobSet): "+err.Error()]++
			continue
		}
		if err == nil {
			err = snapErr
		}
		if err != nil {
			// As the timeline leg does: the scenario is shown, and the run fails at its end.
			fmt.Printf("HARNESS %s: %v\n  scenario: %s\n", sc.Name, err, mustJSON(sc))
			harnessErrors++
			continue
		}
		for _, s := range taken {
			s.out = out
			snaps = append(snaps, s)
		}
	}
	upTime := time.Since(upStart)
	t, err := explainSnapshots(snaps, *flagExplainJobSetOut, explainJobSetVerdict)
	if err != nil {
		return 0, 0, err
	}
	fmt.Printf("explain(JobSet, real JobSet and Job controllers): %d snapshots, %d disagreements; %d next Job failures compared, %d set apart (not Running, another reason, several at once, none before the end) (upstream %.1fs, restartkit %.1fs)\n",
		len(snaps), t.disagreements, t.compared, t.apart, upTime.Seconds(), t.rkTime.Seconds())
	fmt.Printf("  compared, by what the controller did: Failed %d, Restarting %d, RestartJob %d, nothing %d\n",
		jobsetOutcomesCompared["Failed"], jobsetOutcomesCompared["Restarting"], jobsetOutcomesCompared["RestartJob"], jobsetOutcomesCompared["nothing"])
	t.perFamily.print("snapshots")
	if harnessErrors > 0 {
		return len(snaps), t.disagreements + harnessErrors, fmt.Errorf("%d explain(JobSet) scenarios failed in the harness", harnessErrors)
	}
	return len(snaps), t.disagreements, nil
}
