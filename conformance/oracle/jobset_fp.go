package main

// The JobSet controller's failure-policy step (sigs.k8s.io/jobset pkg/controllers
// failure_policy.go) against restartkit's jobsetFailurePolicy op: upstream's answer comes from
// the jobset-upstream helper (jobset/failure_policy.go). executeFailurePolicy mutates the
// JobSet's status and collects the events to emit; both are compared (condition times aside:
// upstream stamps the wall clock, restartkit has none). The generator is here.

import (
	"fmt"
	"strings"
	"time"
)

var jobFailureReasonsSeen = []string{"BackoffLimitExceeded", "DeadlineExceeded", "PodFailurePolicy", "MaxFailedIndexesExceeded", "FailedIndexes", "Evicted"}

// jobsetFailurePolicy: a JobSet with a failure policy (0-4 rules: actions, reasons, message
// patterns, targets), restarts near maxRestarts, and 1-3 failed child Jobs (parents known,
// unknown or missing; reasons; messages; failure times with ties).
func (g gen) jobsetFailurePolicy() map[string]any {
	rjNames := []string{"workers", "driver", "ps"}[:1+g.r.IntN(3)]
	var rjs []any
	for _, n := range rjNames {
		rjs = append(rjs, map[string]any{
			"name": n, "replicas": 1 + g.r.IntN(3), "groupName": "default",
			"template": map[string]any{"spec": map[string]any{"template": map[string]any{"spec": map[string]any{
				"restartPolicy": "Never", "containers": []any{map[string]any{"name": "main", "image": "busybox"}},
			}}}},
		})
	}
	maxRestarts := g.r.IntN(4)
	fp := map[string]any{"maxRestarts": maxRestarts, "restartStrategy": g.pick("Recreate", "BlockingRecreate").(string)}
	var rules []any
	for i := 0; i < g.r.IntN(5); i++ {
		rule := map[string]any{
			"name":   fmt.Sprintf("rule%d", i),
			"action": g.pick("FailJobSet", "RestartJobSet", "RestartJobSetAndIgnoreMaxRestarts").(string),
		}
		if g.chance(0.15) {
			rule["action"] = g.pick("RestartJob", "RestartJobAndIgnoreMaxRestarts").(string)
		}
		if g.chance(0.5) {
			rule["onJobFailureReasons"] = []any{jobFailureReasonsSeen[g.r.IntN(5)]}
		}
		if g.chance(0.2) {
			rule["onJobFailureMessagePatterns"] = []any{g.pick("deadline", "^Job has reached", "(?i)BACKOFF", "exit code [0-9]+", "^$", "[", "\\p{Greek}").(string)}
		}
		if g.chance(0.4) {
			rule["targetReplicatedJobs"] = []any{g.pick(append([]any{"unknown"}, toAny(rjNames)...)...).(string)}
		}
		rules = append(rules, rule)
	}
	if len(rules) > 0 {
		fp["rules"] = rules
	}
	restarts := g.r.IntN(maxRestarts + 2)
	js := map[string]any{
		"apiVersion": "jobset.x-k8s.io/v1alpha2", "kind": "JobSet",
		"metadata": map[string]any{"name": "js", "namespace": "default"},
		"spec":     map[string]any{"replicatedJobs": rjs, "failurePolicy": fp},
		"status":   map[string]any{"restarts": restarts + g.r.IntN(2), "restartsCountTowardsMax": restarts},
	}
	base := time.Date(2025, 1, 1, 12, 0, 0, 0, time.UTC)
	var jobs []any
	for i := 0; i < 1+g.r.IntN(3); i++ {
		labels := map[string]any{"jobset.sigs.k8s.io/jobset-name": "js", "jobset.sigs.k8s.io/job-index": "0"}
		if g.chance(0.9) {
			labels["jobset.sigs.k8s.io/replicatedjob-name"] = g.pick(append([]any{"gone"}, toAny(rjNames)...)...).(string)
		}
		msg := g.pick("", "Job has reached the specified backoff limit", "Job was active longer than specified deadline", "Container main failed with exit code 42", "Pod failed (ΔΣ)").(string)
		jobs = append(jobs, map[string]any{
			"apiVersion": "batch/v1", "kind": "Job",
			"metadata": map[string]any{"name": fmt.Sprintf("js-job-%d", i), "namespace": "default", "labels": labels},
			"spec":     map[string]any{"template": map[string]any{"spec": map[string]any{"restartPolicy": "Never", "containers": []any{map[string]any{"name": "main", "image": "busybox"}}}}},
			"status": map[string]any{"failed": 1, "conditions": []any{map[string]any{
				"type": "Failed", "status": "True", "reason": jobFailureReasonsSeen[g.r.IntN(len(jobFailureReasonsSeen))], "message": msg,
				"lastTransitionTime": base.Add(time.Duration(g.r.IntN(3)) * time.Minute).Format(time.RFC3339),
			}}},
		})
	}
	in := map[string]any{"jobset": js, "failedJobs": jobs}
	if g.chance(0.5) {
		in["featureGates"] = map[string]any{"RestartJob": g.chance(0.7)}
	}
	return in
}

func toAny(xs []string) []any {
	out := make([]any, len(xs))
	for i, x := range xs {
		out[i] = strings.Clone(x)
	}
	return out
}
