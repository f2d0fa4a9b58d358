package main

// The JobSet controller's failure-policy step (sigs.k8s.io/jobset pkg/controllers
// failure_policy.go, at the version in go.mod) against restartkit's jobsetFailurePolicy op.
// executeFailurePolicy and its two finders are unexported: pulled with go:linkname, with
// structs of the same layout for the controller's unexported parameter types. It mutates the
// JobSet's status and collects the events to emit; both are compared (condition times aside:
// upstream stamps the wall clock, restartkit has none).

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"
	_ "unsafe" // go:linkname

	batchv1 "k8s.io/api/batch/v1"
	"k8s.io/apimachinery/pkg/runtime"
	jobset "sigs.k8s.io/jobset/api/jobset/v1alpha2"
	_ "sigs.k8s.io/jobset/pkg/controllers" // the functions pulled below live there
)

// childJobsLayout has the layout of pkg/controllers.childJobs.
type childJobsLayout struct {
	active, successful, failed, previous []*batchv1.Job
}

// eventParamsLayout has the layout of pkg/controllers.eventParams.
type eventParamsLayout struct {
	object                               runtime.Object
	eventType, eventReason, eventMessage string
}

// statusUpdateOptsLayout has the layout of pkg/controllers.statusUpdateOpts.
type statusUpdateOptsLayout struct {
	shouldUpdate bool
	events       []*eventParamsLayout
}

//go:linkname jobSetExecuteFailurePolicy sigs.k8s.io/jobset/pkg/controllers.executeFailurePolicy
func jobSetExecuteFailurePolicy(ctx context.Context, js *jobset.JobSet, owned *childJobsLayout, opts *statusUpdateOptsLayout) error

//go:linkname jobSetFindFirstFailedPolicyRuleAndJob sigs.k8s.io/jobset/pkg/controllers.findFirstFailedPolicyRuleAndJob
func jobSetFindFirstFailedPolicyRuleAndJob(ctx context.Context, rules []jobset.FailurePolicyRule, failed []*batchv1.Job) (*jobset.FailurePolicyRule, *batchv1.Job)

//go:linkname jobSetFindFirstFailedJob sigs.k8s.io/jobset/pkg/controllers.findFirstFailedJob
func jobSetFindFirstFailedJob(failed []*batchv1.Job) *batchv1.Job

func upstreamJobSetFailurePolicy(raw []byte) (map[string]any, error) {
	var in struct {
		JobSet       jobset.JobSet   `json:"jobset"`
		FailedJobs   []batchv1.Job   `json:"failedJobs"`
		FeatureGates map[string]bool `json:"featureGates"`
	}
	if err := json.Unmarshal(raw, &in); err != nil {
		return nil, err
	}
	if err := setGates(in.FeatureGates); err != nil {
		return nil, err
	}
	js := &in.JobSet
	if js.Spec.FailurePolicy == nil {
		return nil, fmt.Errorf("jobset failure policy: the generator always sets one")
	}
	failed := make([]*batchv1.Job, len(in.FailedJobs))
	for i := range in.FailedJobs {
		failed[i] = &in.FailedJobs[i]
	}
	ctx := context.Background()
	rules := js.Spec.FailurePolicy.Rules
	// The matched rule's index: the shortest prefix of the rules for which upstream finds one.
	var matched any
	var job *batchv1.Job
	for i := range rules {
		if r, j := jobSetFindFirstFailedPolicyRuleAndJob(ctx, rules[:i+1], failed); r != nil {
			matched, job = i, j
			break
		}
	}
	action := string(jobset.RestartJobSet) // the controller's default action
	if m, ok := matched.(int); ok {
		action = string(rules[m].Action)
	} else {
		job = jobSetFindFirstFailedJob(failed)
	}
	if job == nil {
		return nil, fmt.Errorf("jobset failure policy: no failed job")
	}
	opts := &statusUpdateOptsLayout{}
	if err := jobSetExecuteFailurePolicy(ctx, js, &childJobsLayout{failed: failed}, opts); err != nil {
		// The controller logs the error and retries the reconcile; restartkit reports it.
		return map[string]any{"action": action, "matchedRule": matched, "matchedJob": job.Name, "error": err.Error()}, nil
	}
	status := map[string]any{
		"restarts":                js.Status.Restarts,
		"restartsCountTowardsMax": js.Status.RestartsCountTowardsMax,
	}
	if js.Status.TerminalState != "" {
		status["terminalState"] = js.Status.TerminalState
	}
	conds := []any{}
	for _, c := range js.Status.Conditions {
		conds = append(conds, map[string]any{"type": c.Type, "status": string(c.Status), "reason": c.Reason, "message": c.Message})
	}
	events := []any{}
	for _, e := range opts.events {
		events = append(events, map[string]any{"type": e.eventType, "reason": e.eventReason, "message": e.eventMessage})
	}
	return map[string]any{
		"action": action, "matchedRule": matched, "matchedJob": job.Name,
		"jobSetStatus": status, "conditions": conds, "events": events,
	}, nil
}

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
