package main

// The JobSet controller's failure-policy step (pkg/controllers/failure_policy.go):
// executeFailurePolicy and its two finders are unexported, so they are pulled with go:linkname,
// with structs of the same layout for the controller's unexported argument types.

import (
	"context"
	"encoding/json"
	"fmt"
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

func failurePolicy(raw []byte) (map[string]any, error) {
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
		return map[string]any{"expect": map[string]any{"action": action, "matchedRule": matched, "matchedJob": job.Name, "error": err.Error()}}, nil
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
	return map[string]any{"expect": map[string]any{
		"action": action, "matchedRule": matched, "matchedJob": job.Name,
		"jobSetStatus": status, "conditions": conds, "events": events,
	}}, nil
}
