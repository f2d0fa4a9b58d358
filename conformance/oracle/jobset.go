package main

// The JobSet leg: JobSet manifests validated by the JobSet webhook (sigs.k8s.io/jobset at the
// version in go.mod: its mutating Default, then ValidateCreate) and by restartkit's `validate`.
//
// The webhook's type is unexported, so its two methods are pulled with go:linkname (the binary
// is built with -checklinkname=0, as for matchPodFailurePolicy). The receiver only holds a
// client, which ValidateCreate uses for volume claim policies alone; the generator never sets
// those, and a struct of the same layout stands in for it.
//
// What is compared: the webhook returns plain messages, so a case expects `valid`, and for an
// invalid JobSet each upstream message as a substring of one of restartkit's errors
// (`errorMessages`, FORMAT.md rule 3), with `errorsComplete: false`: restartkit may report more,
// as it also validates the Job templates the JobSet controller will create. The generator keeps
// within the CRD's OpenAPI schema (enums, minimums), which the API server checks before the
// webhook is called, and within what restartkit models (no in-place restart, no volume claim
// policies, no coordinator).

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	_ "unsafe" // go:linkname

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"
	jobset "sigs.k8s.io/jobset/api/jobset/v1alpha2"
	_ "sigs.k8s.io/jobset/pkg/webhooks" // the methods pulled below live there
)

// jobSetWebhookLayout has the layout of sigs.k8s.io/jobset/pkg/webhooks.jobSetWebhook.
type jobSetWebhookLayout struct {
	client client.Client
}

//go:linkname jobSetDefault sigs.k8s.io/jobset/pkg/webhooks.(*jobSetWebhook).Default
func jobSetDefault(w *jobSetWebhookLayout, ctx context.Context, js *jobset.JobSet) error

//go:linkname jobSetValidateCreate sigs.k8s.io/jobset/pkg/webhooks.(*jobSetWebhook).ValidateCreate
func jobSetValidateCreate(w *jobSetWebhookLayout, ctx context.Context, js *jobset.JobSet) (admission.Warnings, error)

// jobsetModule is the pinned sigs.k8s.io/jobset version, read from the build.
func jobsetModule() string { return moduleVersion("sigs.k8s.io/jobset") }

// defaultJobSet gives a JobSet the defaults the API server gives it on create: the CRD's
// OpenAPI defaults (+kubebuilder:default in api/jobset/v1alpha2/jobset_types.go), applied
// before any webhook sees the object, then the webhook's Default.
func defaultJobSet(js *jobset.JobSet) error {
	for i := range js.Spec.ReplicatedJobs {
		if js.Spec.ReplicatedJobs[i].GroupName == "" {
			js.Spec.ReplicatedJobs[i].GroupName = "default"
		}
	}
	if fp := js.Spec.FailurePolicy; fp != nil && fp.RestartStrategy == "" {
		fp.RestartStrategy = jobset.Recreate
	}
	if err := jobSetDefault(&jobSetWebhookLayout{}, context.Background(), js); err != nil {
		return fmt.Errorf("jobset default: %v", err)
	}
	return nil
}

func upstreamJobSetValidate(raw []byte) (map[string]any, error) {
	var in struct {
		Object       json.RawMessage `json:"object"`
		FeatureGates map[string]bool `json:"featureGates"`
	}
	if err := json.Unmarshal(raw, &in); err != nil {
		return nil, err
	}
	if err := setGates(in.FeatureGates); err != nil {
		return nil, err
	}
	js := &jobset.JobSet{}
	if err := json.Unmarshal(in.Object, js); err != nil {
		return nil, fmt.Errorf("jobset decode: %v", err)
	}
	if err := defaultJobSet(js); err != nil {
		return nil, err
	}
	_, err := jobSetValidateCreate(&jobSetWebhookLayout{}, context.Background(), js)
	if err == nil {
		return map[string]any{"valid": true, "errors": []any{}}, nil
	}
	var status *apierrors.StatusError
	if !errors.As(err, &status) || status.ErrStatus.Details == nil {
		return nil, fmt.Errorf("jobset webhook: %v", err)
	}
	msgs := []any{}
	for _, c := range status.ErrStatus.Details.Causes {
		if !jobsetInScope(c.Message) {
			continue
		}
		// Plain errors arrive as field.InternalError(nil, err); field errors as
		// "Invalid value: ...: detail". The detail is what both sides must say.
		m := strings.TrimPrefix(c.Message, "Internal error: ")
		if i := strings.LastIndex(m, ": "); strings.HasPrefix(m, "Invalid value: ") && i > 0 {
			m = m[i+2:]
		}
		msgs = append(msgs, m)
	}
	if len(msgs) == 0 {
		return map[string]any{"valid": true, "errors": []any{}}, nil
	}
	return map[string]any{"valid": false, "errors": []any{}, "errorMessages": msgs, "errorsComplete": false}, nil
}

// jobsetInScope: the webhook's checks restartkit models, those about restarts and failures
// (the failure policy, RestartJob, in-place restart, replicas × parallelism). Its other checks
// (group and generated job/pod names as DNS labels, success policy and dependsOn targets,
// network subdomain, managedBy, coordinator, volume claim policies) are outside restartkit's
// scope (docs/oracle.md, "JobSet"), so their messages are not expected of it.
func jobsetInScope(msg string) bool {
	for _, s := range []string{"failure policy", "rule name", "RestartJob", "InPlaceRestart", "in-place restart", "product of replicas and parallelism"} {
		if strings.Contains(msg, s) {
			return true
		}
	}
	return false
}

var jobsetFailureReasons = []string{"BackoffLimitExceeded", "DeadlineExceeded", "FailedIndexes", "MaxFailedIndexesExceeded", "PodFailurePolicy"}

// validateJobSet: JobSets near the webhook's checks: replicated job names and counts, failure
// policy rules (names valid, empty, too long, malformed, repeated; targets and reasons known or
// not), success policy targets.
func (g gen) validateJobSet() map[string]any {
	names := []string{"workers", "driver", "ps", "a", "trainer-" + strings.Repeat("x", g.r.IntN(50))}
	n := 1 + g.r.IntN(3)
	var rjs []any
	var used []string
	for i := 0; i < n; i++ {
		name := names[g.r.IntN(len(names))]
		used = append(used, name)
		tmpl := map[string]any{
			"spec": map[string]any{
				"restartPolicy": g.pick("Never", "OnFailure").(string),
				"containers":    []any{map[string]any{"name": "main", "image": "busybox"}},
			},
		}
		if g.chance(0.3) {
			delete(tmpl["spec"].(map[string]any), "restartPolicy") // defaulted to OnFailure
		}
		rj := map[string]any{
			"name":     name,
			"replicas": g.pick(1, 2, 3, 4, 1025).(int),
			"template": map[string]any{"spec": map[string]any{"template": tmpl}},
		}
		if g.chance(0.2) {
			rj["groupName"] = g.pick("default", "group-a", "Bad_Group").(string)
		}
		rjs = append(rjs, rj)
	}
	spec := map[string]any{"replicatedJobs": rjs}
	ref := func() string {
		if g.chance(0.15) {
			return "unknown-job"
		}
		return used[g.r.IntN(len(used))]
	}
	if g.chance(0.8) {
		fp := map[string]any{"maxRestarts": g.r.IntN(6)}
		if g.chance(0.3) {
			fp["restartStrategy"] = g.pick("Recreate", "BlockingRecreate", "Recreate", "BlockingRecreate", "InPlaceRestart").(string)
		}
		var rules []any
		var ruleNames []string
		for i := 0; i < g.r.IntN(5); i++ {
			rule := map[string]any{
				"action": g.pick("FailJobSet", "RestartJobSet", "RestartJobSetAndIgnoreMaxRestarts").(string),
			}
			if g.chance(0.1) {
				rule["action"] = g.pick("RestartJob", "RestartJobAndIgnoreMaxRestarts").(string)
			}
			switch {
			case len(ruleNames) > 0 && g.chance(0.1):
				rule["name"] = ruleNames[g.r.IntN(len(ruleNames))]
			case g.chance(0.1):
				rule["name"] = g.pick("1abc", "a-b", "ab_", "a:b,c", strings.Repeat("r", 129), "x").(string)
			case g.chance(0.8):
				name := fmt.Sprintf("rule%d", i)
				rule["name"] = name
				ruleNames = append(ruleNames, name)
			}
			if g.chance(0.5) {
				var rs []any
				for j := 0; j < 1+g.r.IntN(2); j++ {
					if g.chance(0.15) {
						rs = append(rs, "NotAReason")
					} else {
						rs = append(rs, jobsetFailureReasons[g.r.IntN(len(jobsetFailureReasons))])
					}
				}
				rule["onJobFailureReasons"] = rs
			}
			if g.chance(0.5) {
				rule["targetReplicatedJobs"] = []any{ref()}
			}
			rules = append(rules, rule)
		}
		if len(rules) > 0 {
			fp["rules"] = rules
		}
		spec["failurePolicy"] = fp
	}
	if g.chance(0.4) {
		sp := map[string]any{"operator": g.pick("All", "Any").(string)}
		if g.chance(0.6) {
			sp["targetReplicatedJobs"] = []any{ref()}
		}
		spec["successPolicy"] = sp
	}
	in := map[string]any{}
	if g.chance(0.3) {
		in["featureGates"] = map[string]any{"RestartJob": g.chance(0.5), "InPlaceRestart": g.chance(0.5)}
	}
	in["object"] = map[string]any{
		"apiVersion": "jobset.x-k8s.io/v1alpha2",
		"kind":       "JobSet",
		"metadata":   map[string]any{"name": g.pick("js", "training-run", strings.Repeat("n", 40)).(string), "namespace": "default"},
		"spec":       spec,
	}
	return in
}
