package main

// Upstream's answer for one TrainJob and its runtime, from the trainer's own code: the CRD
// admission of both (crd.go), the runtime's validating webhook, the TrainJob's validating
// webhook (the runtime lookup and every plugin's Validate, through Runtime.ValidateObjects),
// then runtime/core New + NewObjects on a controller-runtime fake client holding the runtime,
// as the trainer's unit tests build the objects.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	schedulingv1 "k8s.io/api/scheduling/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	utilerrors "k8s.io/apimachinery/pkg/util/errors"
	utiljson "k8s.io/apimachinery/pkg/util/json"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"sigs.k8s.io/controller-runtime/pkg/client"
	jobsetv1alpha2 "sigs.k8s.io/jobset/api/jobset/v1alpha2"

	trainer "github.com/kubeflow/trainer/v2/pkg/apis/trainer/v1alpha1"
	jobruntimes "github.com/kubeflow/trainer/v2/pkg/runtime"
	"github.com/kubeflow/trainer/v2/pkg/runtime/core"
	utiltesting "github.com/kubeflow/trainer/v2/pkg/util/testing"
	"github.com/kubeflow/trainer/v2/pkg/webhooks"
)

// verdict is one error as both sides are compared: the field, the ErrorType's name (or "" for
// a plain message) and the detail (addresses Go prints for pointers written 0x…).
type verdict struct {
	Field  string `json:"field"`
	Type   string `json:"type"`
	Detail string `json:"detail"`
}

type answer struct {
	RuntimeErrors []verdict `json:"runtimeErrors"`
	// The runtime's own admission failed: such a runtime cannot exist in a cluster, and what
	// the trainer builds from it is not compared.
	RuntimeRefused bool             `json:"runtimeRefused"`
	TrainJobErrors []verdict        `json:"trainJobErrors"`
	Built          bool             `json:"built"`
	JobSet         map[string]any   `json:"jobSet,omitempty"`
	Objects        []map[string]any `json:"objects,omitempty"`
	// The controller's error (or panic) when it cannot build the objects.
	BuildError string `json:"buildError,omitempty"`
	// Why no JobSet although nothing failed (another manager).
	NotBuilt string `json:"notBuilt,omitempty"`
}

func verdicts(errs field.ErrorList) []verdict {
	out := []verdict{}
	for _, e := range errs {
		out = append(out, verdict{Field: e.Field, Type: string(e.Type), Detail: normalizeAddr(e.Detail)})
	}
	return out
}

func normalizeAddr(s string) string { return addrRE.ReplaceAllString(s, "0x…") }

// fieldErrors takes the field.ErrorList back out of a webhook's aggregate error.
func fieldErrors(err error) field.ErrorList {
	if err == nil {
		return nil
	}
	var agg utilerrors.Aggregate
	if errors.As(err, &agg) {
		var out field.ErrorList
		for _, e := range agg.Errors() {
			var fe *field.Error
			if errors.As(e, &fe) {
				out = append(out, fe)
			} else {
				out = append(out, &field.Error{Detail: e.Error()})
			}
		}
		return out
	}
	return field.ErrorList{&field.Error{Detail: err.Error()}}
}

func decodeInto(m map[string]any, into any) error {
	raw, err := json.Marshal(m)
	if err != nil {
		return err
	}
	return json.Unmarshal(raw, into)
}

// normalizeObject is an object as the API server stores it: decoded into its Go type and
// encoded again, creationTimestamp left out.
func normalizeObject(o runtime.Object) (map[string]any, error) {
	raw, err := json.Marshal(o)
	if err != nil {
		return nil, err
	}
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, err
	}
	if md, ok := m["metadata"].(map[string]any); ok {
		delete(md, "creationTimestamp")
	}
	return m, nil
}

func upstream(rtIn, tjIn map[string]any) (ans answer, err error) {
	rt := deepCopy(rtIn)
	tj := deepCopy(tjIn)
	rtKind, _ := rt["kind"].(string)
	schema := crds[rtKind]
	if schema == nil {
		return ans, fmt.Errorf("no CRD for %q", rtKind)
	}
	rtErrs := schema.admit(rt)
	var rtObj client.Object
	switch rtKind {
	case trainer.TrainingRuntimeKind:
		var r trainer.TrainingRuntime
		if err := decodeInto(rt, &r); err != nil {
			return ans, err
		}
		rtObj = &r
		if len(rtErrs) == 0 && r.Labels["trainer.kubeflow.org/webhook-validation"] != "disabled" {
			_, werr := (&webhooks.TrainingRuntimeValidator{}).ValidateCreate(context.Background(), &r)
			rtErrs = fieldErrors(werr)
		}
	default:
		var r trainer.ClusterTrainingRuntime
		if err := decodeInto(rt, &r); err != nil {
			return ans, err
		}
		rtObj = &r
		if len(rtErrs) == 0 && r.Labels["trainer.kubeflow.org/webhook-validation"] != "disabled" {
			_, werr := (&webhooks.ClusterTrainingRuntimeValidator{}).ValidateCreate(context.Background(), &r)
			rtErrs = fieldErrors(werr)
		}
	}
	ans.RuntimeErrors = verdicts(rtErrs)
	ans.RuntimeRefused = len(rtErrs) > 0

	tjErrs := crds[trainer.TrainJobKind].admit(tj)
	var trainJob trainer.TrainJob
	if err := decodeInto(tj, &trainJob); err != nil {
		return ans, err
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	// The PriorityClass the generator's Volcano runtimes name exists: restartkit cannot see a
	// cluster and assumes it does (warning that the webhook checks it).
	builder := utiltesting.NewClientBuilder().WithObjects(rtObj, &schedulingv1.PriorityClass{ObjectMeta: metav1.ObjectMeta{Name: "high"}})
	c := builder.Build()
	runtimes, err := core.New(ctx, c, utiltesting.AsIndex(builder), nil)
	if err != nil {
		return ans, err
	}
	if len(tjErrs) > 0 {
		ans.TrainJobErrors = verdicts(tjErrs)
		return ans, nil
	}
	key := jobruntimes.RuntimeRefToRuntimeRegistryKey(trainJob.Spec.RuntimeRef)
	r, ok := runtimes[key]
	if !ok {
		ans.TrainJobErrors = []verdict{{Detail: fmt.Sprintf("unsupported runtime: %s", key)}}
		return ans, nil
	}
	werrs, panicked := validateObjects(ctx, r, &trainJob)
	if panicked != "" {
		ans.TrainJobErrors = []verdict{{Detail: panicked}}
		return ans, nil
	}
	ans.TrainJobErrors = verdicts(werrs)
	if len(werrs) > 0 {
		return ans, nil
	}
	if mb := trainJob.Spec.ManagedBy; mb != nil && *mb != "trainer.kubeflow.org/trainjob-controller" {
		ans.NotBuilt = "managedBy " + *mb
		return ans, nil
	}
	objs, buildErr := newObjects(ctx, r, &trainJob)
	if buildErr != "" {
		ans.BuildError = normalizeAddr(buildErr)
		return ans, nil
	}
	typed, err := utiltesting.ToObject(c.Scheme(), objs...)
	if err != nil {
		return ans, err
	}
	ans.Built = true
	for _, o := range typed {
		m, err := normalizeObject(o)
		if err != nil {
			return ans, err
		}
		if _, isJobSet := o.(*jobsetv1alpha2.JobSet); isJobSet {
			ans.JobSet = m
			continue
		}
		ans.Objects = append(ans.Objects, m)
	}
	// The runtime snapshot ConfigMap (applied by NewObjects itself, not returned).
	ans.Objects = append(ans.Objects, map[string]any{
		"kind": "ConfigMap", "metadata": map[string]any{"name": trainJob.Name + "-runtime-snapshot"},
	})
	return ans, nil
}

func validateObjects(ctx context.Context, r jobruntimes.Runtime, tj *trainer.TrainJob) (errs field.ErrorList, panicked string) {
	defer func() {
		if p := recover(); p != nil {
			panicked = fmt.Sprintf("panic: %v [recovered]", p)
		}
	}()
	_, errs = r.ValidateObjects(ctx, nil, tj)
	return errs, ""
}

func newObjects(ctx context.Context, r jobruntimes.Runtime, tj *trainer.TrainJob) (objs []runtime.ApplyConfiguration, failure string) {
	defer func() {
		if p := recover(); p != nil {
			failure = fmt.Sprintf("panic: %v", p)
		}
	}()
	objs, err := r.NewObjects(ctx, tj)
	if err != nil {
		return nil, err.Error()
	}
	return objs, ""
}

// deepCopy: the object as the API server decodes a JSON body (integers as int64, which CEL
// needs).
func deepCopy(m map[string]any) map[string]any {
	raw, _ := json.Marshal(m)
	var out map[string]any
	_ = utiljson.Unmarshal(raw, &out)
	return out
}

// sortEnvByName puts every container's env in name order, for the policies whose env order
// upstream leaves to Go's map iteration (XGBoost: plainml's and xgboost's upserts).
func sortEnvByName(js map[string]any) {
	walkContainers(js, func(c map[string]any) {
		env, _ := c["env"].([]any)
		for i := 1; i < len(env); i++ {
			for j := i; j > 0 && envName(env[j]) < envName(env[j-1]); j-- {
				env[j], env[j-1] = env[j-1], env[j]
			}
		}
	})
}

func envName(v any) string {
	m, _ := v.(map[string]any)
	s, _ := m["name"].(string)
	return s
}

func walkContainers(js map[string]any, f func(map[string]any)) {
	spec, _ := js["spec"].(map[string]any)
	rjs, _ := spec["replicatedJobs"].([]any)
	for _, rj := range rjs {
		pod := dig(rj, "template", "spec", "template", "spec")
		for _, k := range []string{"containers", "initContainers"} {
			cs, _ := pod[k].([]any)
			for _, c := range cs {
				if cm, ok := c.(map[string]any); ok {
					f(cm)
				}
			}
		}
	}
}

func dig(v any, keys ...string) map[string]any {
	for _, k := range keys {
		m, _ := v.(map[string]any)
		v = m[k]
	}
	m, _ := v.(map[string]any)
	return m
}

var _ = strings.TrimSpace
