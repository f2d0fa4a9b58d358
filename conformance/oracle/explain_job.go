package main

// The explain leg, Job family (issue 41 item 4): the Job timeline leg's scenarios play on the real
// Job controller (timeline.go); at random instants of the run the Job and its Pods are taken as
// the API server stores them, `restartkit explain` reads them with --now at that instant, and its
// predictions are compared with what the controller then does:
//   - failures left (backoffLimit − status.failed, Jobs without backoffLimitPerIndex and with
//     restartPolicy Never): a Job that then fails with BackoffLimitExceeded counted exactly that
//     many failures more, plus the one that failed it; a Job that completes, or still runs at the
//     end, counted at most that many more;
//   - the Pod-creation back-off (the Job's, or an index's with backoffLimitPerIndex): when a wait
//     is pending at the snapshot and the next thing to happen to the Job is a Pod creation (of
//     that index), it happens at exactly nextPodAt.
// Other predictions are set apart: a Job already finished at the snapshot, a Job that fails for
// another reason (a podFailurePolicy FailJob, a deadline), and a creation that some other event
// precedes.

import (
	"encoding/json"
	"flag"
	"fmt"
	"math/rand/v2"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
)

var (
	flagExplainJobN   = flag.Int("explain-job-n", 0, "snapshots for the explain leg's Job family (the Job timeline scenarios on the real Job controller, snapshotted at random instants; 0: leg off)")
	flagExplainJobOut = flag.String("explain-job-out", "", "write each disagreeing Job snapshot (JSON lines) to this file")
)

// jobSnapshot is a Job and its Pods at one instant of an upstream run.
type jobSnapshot struct {
	sc      *tlScenario
	at      time.Time
	objects json.RawMessage // a kind: List
	before  int             // h.out.Events[:before] happened at or before `at`
	// The Job's status.failed at the end of the instant before the one at which the controller
	// set FailureTarget (or Failed), and at the end of that instant (-1: never); set after the
	// run.
	failedBefore, failedAtTarget int32
	out                          tlOutcome // the run's whole outcome
}

func (s jobSnapshot) scenarioName() string   { return s.sc.Name }
func (s jobSnapshot) scenarioFamily() string { return s.sc.family }
func (s jobSnapshot) instant() time.Time     { return s.at }
func (s jobSnapshot) input() map[string]any {
	return explainInput(s.objects, s.sc.KubernetesVersion, s.at, s.sc.FeatureGates)
}
func (s jobSnapshot) record() map[string]any {
	return map[string]any{"scenario": s.sc, "snapshot": s.objects, "upstream": s.out}
}

type explainedBackOff struct {
	NextPodAt        string  `json:"nextPodAt"`
	NextPodInSeconds float64 `json:"nextPodInSeconds"`
}

type explainedJobs struct {
	Workloads []struct {
		Jobs []struct {
			Name                 string            `json:"name"`
			Present              bool              `json:"present"`
			Phase                string            `json:"phase"`
			Failed               int32             `json:"failed"`
			FailuresLeft         *int64            `json:"failuresLeft"`
			BackoffLimitPerIndex *int32            `json:"backoffLimitPerIndex"`
			PodCreationBackOff   *explainedBackOff `json:"podCreationBackOff"`
			Indexes              []struct {
				Index              int               `json:"index"`
				PodCreationBackOff *explainedBackOff `json:"podCreationBackOff"`
			} `json:"indexes"`
		} `json:"jobs"`
	} `json:"workloads"`
}

// snapshotJob lists the harness's Job and Pods as the API server stores them.
func snapshotJob(h *tlHarness) (json.RawMessage, error) {
	var items []any
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

// explainJobVerdict compares explain's answer for one snapshot with the run after it.
// compared counts the failures-left predictions compared, createCompared the Pod-creation ones.
func explainJobVerdict(s jobSnapshot, raw json.RawMessage) (diff string, compared, apart int) {
	out := s.out
	var ex explainedJobs
	if err := json.Unmarshal(raw, &ex); err != nil {
		return "explain's answer does not read: " + err.Error(), 0, 0
	}
	var found bool
	t := s.at.Sub(tlEpoch).Seconds()
	after := out.Events[s.before:]
	spec, _ := s.sc.Workload["spec"].(map[string]any)
	tmpl, _ := spec["template"].(map[string]any)
	podSpec, _ := tmpl["spec"].(map[string]any)
	onFailure := podSpec["restartPolicy"] == "OnFailure"
	failedReason := ""
	// The failure's reason: from FailureTarget, which the controller sets first (the Failed
	// condition waits for the Pods to terminate, which a lost node's Pod may not by the end).
	failedAt := -1.0
	for _, e := range out.Events {
		if e.Event == "Condition" && (e.Type == string(batchv1.JobFailed) || e.Type == "FailureTarget") {
			failedReason, failedAt = e.Reason, e.T
			break
		}
	}
	for _, w := range ex.Workloads {
		for _, j := range w.Jobs {
			if !j.Present {
				continue
			}
			found = true
			if j.Phase != "Running" || (failedAt >= 0 && failedAt <= t) {
				apart++
				continue
			}
			// Failures left.
			if j.FailuresLeft != nil && !onFailure {
				more := int64(out.Failed - j.Failed)
				switch {
				case failedReason == "BackoffLimitExceeded":
					// Several Pods can fail at the instant the Job fails: the failures before that
					// instant are at most the ones left, and with that instant's they are more.
					if s.failedAtTarget < 0 {
						return fmt.Sprintf("job %s: the harness did not see the failure's count (failed at t=%gs)", j.Name, failedAt), compared, apart
					}
					before, at := int64(s.failedBefore-j.Failed), int64(s.failedAtTarget-j.Failed)
					if before > *j.FailuresLeft || at <= *j.FailuresLeft {
						return fmt.Sprintf("job %s: explain says %d failures left at t=%gs; the controller failed it (BackoffLimitExceeded) at t=%gs with %d more, %d of them before that instant", j.Name, *j.FailuresLeft, t, failedAt, at, before), compared, apart
					}
					compared++
				case failedReason == "" && more > *j.FailuresLeft:
					return fmt.Sprintf("job %s: explain says %d failures left at t=%gs; the controller counted %d more and did not fail it (final %s)", j.Name, *j.FailuresLeft, t, more, out.Final), compared, apart
				case failedReason == "":
					compared++
				default:
					apart++
				}
			}
			// The Pod-creation back-off: the Job's, then each index's.
			check := func(b *explainedBackOff, index string) string {
				if b == nil || b.NextPodInSeconds <= 0 {
					return ""
				}
				next, err := time.Parse(time.RFC3339, b.NextPodAt)
				if err != nil {
					return fmt.Sprintf("job %s: nextPodAt %q: %v", j.Name, b.NextPodAt, err)
				}
				want := next.Sub(tlEpoch).Seconds()
				for _, e := range after {
					if e.T <= t {
						continue
					}
					created := e.Event == "PodCreated" && (index == "" || e.Index == index)
					if !created && (e.Event == "PodCreated" || e.Event == "SyncError") {
						continue // another index's creation, or a harness note
					}
					if !created {
						break // something else happened first: not compared
					}
					if e.T != want {
						return fmt.Sprintf("job %s: explain says the next Pod%s is created at t=%gs, the controller created it at t=%gs (snapshot t=%gs)", j.Name, indexWords(index), want, e.T, t)
					}
					compared++
					creationsCompared++
					return ""
				}
				apart++
				return ""
			}
			if d := check(j.PodCreationBackOff, ""); d != "" {
				return d, compared, apart
			}
			for _, ix := range j.Indexes {
				if d := check(ix.PodCreationBackOff, fmt.Sprint(ix.Index)); d != "" {
					return d, compared, apart
				}
			}
		}
	}
	if !found {
		return "explain found no Job in the snapshot", compared, apart
	}
	return "", compared, apart
}

// creationsCompared counts the Pod-creation instants compared (of the predictions compared).
var creationsCompared int

func indexWords(index string) string {
	if index == "" {
		return ""
	}
	return " of index " + index
}

// runExplainJob: the Job family of the explain leg, until n snapshots.
func runExplainJob(n int, seed uint64) (int, int, error) {
	if err := timelineSetup(); err != nil {
		return 0, 0, err
	}
	g := gen{rand.New(rand.NewPCG(seed, 0x65786a62))}
	extra := gen{rand.New(rand.NewPCG(seed, 0x65786a66))}
	pick := rand.New(rand.NewPCG(seed, 0x736e616a))
	var snaps []jobSnapshot
	harnessErrors := 0
	upStart := time.Now()
	for i := 0; len(snaps) < n && i < 50*n+100; i++ {
		sc := g.timelineScenario(i, extra)
		sc.Name = fmt.Sprintf("explain-job-%d", i)
		var taken []jobSnapshot
		var snapErr error
		// status.failed at the end of each instant until the Job's failure: the last value before
		// the instant it fails at, and the value at its end.
		failedBefore, failedAtTarget, lastFailed := int32(-1), int32(-1), int32(0)
		onGap := func(h *tlHarness, until time.Time) {
			if failedAtTarget < 0 {
				if jl, err := h.client.Tracker().List(jobsGVR, batchv1.SchemeGroupVersion.WithKind("Job"), ""); err == nil {
					for _, j := range jl.(*batchv1.JobList).Items {
						if hasJobCondition(&j, batchv1.JobFailureTarget) || hasJobCondition(&j, batchv1.JobFailed) {
							failedBefore, failedAtTarget = lastFailed, j.Status.Failed
						} else {
							lastFailed = j.Status.Failed
						}
					}
				}
			}
			if len(taken) >= 4 || pick.Float64() > 0.15 {
				return
			}
			now := h.clock.Now()
			at := now
			if span := int64(until.Sub(now) / time.Second); span > 1 {
				at = now.Add(time.Duration(pick.Int64N(span)) * time.Second)
			}
			objs, err := snapshotJob(h)
			if err != nil {
				snapErr = err
				return
			}
			taken = append(taken, jobSnapshot{sc: sc, at: at, objects: objs, before: len(h.out.Events)})
		}
		out, refused, err := playUpstreamObserved(sc, onGap)
		if err != nil && refused {
			skipReasons["explain(Job): "+err.Error()]++
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
			s.failedBefore, s.failedAtTarget, s.out = failedBefore, failedAtTarget, out
			snaps = append(snaps, s)
		}
	}
	upTime := time.Since(upStart)
	t, err := explainSnapshots(snaps, *flagExplainJobOut, explainJobVerdict)
	if err != nil {
		return 0, 0, err
	}
	fmt.Printf("explain(Job, real Job controller): %d snapshots, %d disagreements; %d predictions compared (%d failures left, %d Pod-creation instants), %d set apart (a finished Job, another failure reason, another event first) (upstream %.1fs, restartkit %.1fs)\n",
		len(snaps), t.disagreements, t.compared, t.compared-creationsCompared, creationsCompared, t.apart, upTime.Seconds(), t.rkTime.Seconds())
	t.perFamily.print("snapshots")
	if harnessErrors > 0 {
		return len(snaps), t.disagreements + harnessErrors, fmt.Errorf("%d explain(Job) scenarios failed in the harness", harnessErrors)
	}
	return len(snaps), t.disagreements, nil
}
