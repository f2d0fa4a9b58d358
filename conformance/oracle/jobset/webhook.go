package main

// The JobSet webhook (pkg/webhooks): its Default and ValidateCreate, after the defaults the API
// server gives a JobSet from the CRD's OpenAPI schema. The webhook's type is unexported, so its
// two methods are pulled with go:linkname onto a struct of the same layout (the binary is built
// with -ldflags=-checklinkname=0); it holds only a client, which ValidateCreate uses for volume
// claim policies alone, never generated.

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

// validate: the webhook's verdict on a JobSet create, reduced to the checks restartkit models.
func validate(raw []byte) (map[string]any, error) {
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
		return map[string]any{"expect": map[string]any{"valid": true, "errors": []any{}}}, nil
	}
	var status *apierrors.StatusError
	if !errors.As(err, &status) || status.ErrStatus.Details == nil {
		return nil, fmt.Errorf("jobset webhook: %v", err)
	}
	msgs := []any{}
	for _, c := range status.ErrStatus.Details.Causes {
		if !inScope(c.Message) {
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
		return map[string]any{"expect": map[string]any{"valid": true, "errors": []any{}}}, nil
	}
	return map[string]any{"expect": map[string]any{"valid": false, "errors": []any{}, "errorMessages": msgs, "errorsComplete": false}}, nil
}

// inScope: the webhook's checks restartkit models, those about restarts and failures (the
// failure policy, RestartJob, in-place restart, replicas × parallelism). Its other checks (group
// and generated job/pod names as DNS labels, success policy and dependsOn targets, network
// subdomain, managedBy, coordinator, volume claim policies) are outside restartkit's scope
// (docs/oracle.md, "JobSet"), so their messages are not expected of it.
func inScope(msg string) bool {
	for _, s := range []string{"failure policy", "rule name", "RestartJob", "InPlaceRestart", "in-place restart", "product of replicas and parallelism"} {
		if strings.Contains(msg, s) {
			return true
		}
	}
	return false
}

// admit: a JobSet as the API server stores it on create (CRD defaults, the webhook's Default),
// refused when the webhook refuses it. The timeline leg starts from this.
func admit(raw []byte, gates map[string]bool) (map[string]any, error) {
	if err := setGates(gates); err != nil {
		return nil, err
	}
	js := &jobset.JobSet{}
	if err := json.Unmarshal(raw, js); err != nil {
		return nil, err
	}
	if err := defaultJobSet(js); err != nil {
		return nil, err
	}
	if _, err := jobSetValidateCreate(&jobSetWebhookLayout{}, context.Background(), js); err != nil {
		return nil, fmt.Errorf("invalid JobSet: %v", err)
	}
	return map[string]any{"object": js}, nil
}
