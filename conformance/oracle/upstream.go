package main

// Upstream's answer for one input of each op, computed by the upstream code linked at the
// versions pinned in go.mod. Every function takes the op's input as JSON (exactly what restartkit
// is sent) and returns the vector `expect` in FORMAT.md's shape.

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"sort"
	_ "unsafe" // go:linkname

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	genericapirequest "k8s.io/apiserver/pkg/endpoints/request"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	"k8s.io/component-base/featuregate"
	"k8s.io/kubernetes/pkg/api/legacyscheme"
	"k8s.io/kubernetes/pkg/apis/batch"
	_ "k8s.io/kubernetes/pkg/apis/batch/install"
	api "k8s.io/kubernetes/pkg/apis/core"
	_ "k8s.io/kubernetes/pkg/apis/core/install"
	_ "k8s.io/kubernetes/pkg/controller/job" // holds matchPodFailurePolicy
	jobregistry "k8s.io/kubernetes/pkg/registry/batch/job"
	podregistry "k8s.io/kubernetes/pkg/registry/core/pod"
)

// The Job controller's matcher is unexported; a test harness may pull it by name (build with
// -ldflags=-checklinkname=0). The signature must match upstream's exactly: pod_failure_policy.go.
//
//go:linkname matchPodFailurePolicy k8s.io/kubernetes/pkg/controller/job.matchPodFailurePolicy
func matchPodFailurePolicy(podFailurePolicy *batchv1.PodFailurePolicy, failedPod *corev1.Pod) (*string, bool, *batchv1.PodFailurePolicyAction)

// knownGates: every gate the linked release registers (pkg/features, with the apiserver's and
// client-go's), by name: what kube-apiserver, kube-controller-manager and the kubelet accept.
var knownGates = func() map[string]bool {
	m := map[string]bool{}
	for f := range utilfeature.DefaultMutableFeatureGate.GetAll() {
		m[string(f)] = true
	}
	return m
}()

// releaseDefaults: every known gate's default in the linked release, read before any case sets
// one (the global gate holds the last case's values afterwards).
var releaseDefaults = func() map[string]bool {
	m := map[string]bool{}
	for f, spec := range utilfeature.DefaultMutableFeatureGate.GetAll() {
		m[string(f)] = spec.Default
	}
	return m
}()

// onlyKnown drops the gates the linked release does not know: a generator draws the same gates
// for every minor (so that a seed's cases stay the same), and a minor that has no such gate
// takes the case without it.
// settableGate: the linked release registers the gate and does not lock it.
func settableGate(name string) bool {
	spec, ok := utilfeature.DefaultMutableFeatureGate.GetAll()[featuregate.Feature(name)]
	return ok && !spec.LockToDefault
}

// settablePreReleaseGate: a gate a case may set whose release has not made it GA or deprecated
// (setting one that has is a start-up log line of the components, which restartkit reports as a
// warning of its own, not one of the API server's the leg compares).
func settablePreReleaseGate(name string) bool {
	spec, ok := utilfeature.DefaultMutableFeatureGate.GetAll()[featuregate.Feature(name)]
	return ok && !spec.LockToDefault && spec.PreRelease != featuregate.GA && spec.PreRelease != featuregate.Deprecated
}

func onlyKnown(g map[string]bool) map[string]bool {
	out := map[string]bool{}
	for k, v := range g {
		if knownGates[k] {
			out[k] = v
		}
	}
	return out
}

// settableGates: the known gates a case may set (not locked to their default), read once.
var settableGates = func() []featuregate.Feature {
	var out []featuregate.Feature
	for f, spec := range utilfeature.DefaultMutableFeatureGate.GetAll() {
		if !spec.LockToDefault {
			out = append(out, f)
		}
	}
	return out
}()

// setGates sets the case's gates and puts every other settable gate back to the release's
// default. Resetting only variedGates let one leg's gate leak into the next: the Pod DNS leg's
// UserNamespacesHostNetworkSupport stayed on for the Pod security leg's cases, which name no such
// gate, and upstream then took hostNetwork beside hostUsers: false.
func setGates(g map[string]bool) error {
	m := map[string]bool{}
	for _, f := range settableGates {
		if def := releaseDefaults[string(f)]; utilfeature.DefaultFeatureGate.Enabled(f) != def {
			m[string(f)] = def
		}
	}
	for k, v := range g {
		m[k] = v
	}
	return utilfeature.DefaultMutableFeatureGate.SetFromMap(m)
}

type pfpInput struct {
	Job          batchv1.Job     `json:"job"`
	Pod          corev1.Pod      `json:"pod"`
	FeatureGates map[string]bool `json:"featureGates"`
}

// decodePFP decodes and defaults the Job as the API server stores it (the controller reads the
// stored Job: an onPodConditions pattern without status has status True).
func decodePFP(raw []byte) (*pfpInput, error) {
	var in pfpInput
	if err := json.Unmarshal(raw, &in); err != nil {
		return nil, err
	}
	legacyscheme.Scheme.Default(&in.Job)
	return &in, nil
}

func pfpExpect(msg *string, count bool, action *batchv1.PodFailurePolicyAction) map[string]any {
	var a, m any
	if action != nil {
		a = string(*action)
	}
	if msg != nil {
		m = *msg
	}
	return map[string]any{"matched": action != nil, "action": a, "countFailed": count, "message": m}
}

func upstreamPodFailurePolicy(raw []byte) (map[string]any, error) {
	in, err := decodePFP(raw)
	if err != nil {
		return nil, err
	}
	if err := setGates(in.FeatureGates); err != nil {
		return nil, err
	}
	return pfpExpect(matchPodFailurePolicy(in.Job.Spec.PodFailurePolicy, &in.Pod)), nil
}

type containerInput struct {
	Pod          corev1.Pod      `json:"pod"`
	Container    string          `json:"container"`
	ExitCode     int32           `json:"exitCode"`
	FeatureGates map[string]bool `json:"featureGates"`
}

func findContainer(spec *corev1.PodSpec, name string) (*corev1.Container, error) {
	for i := range spec.Containers {
		if spec.Containers[i].Name == name {
			return &spec.Containers[i], nil
		}
	}
	for i := range spec.InitContainers {
		if spec.InitContainers[i].Name == name {
			return &spec.InitContainers[i], nil
		}
	}
	return nil, fmt.Errorf("no container %q", name)
}

func decodeContainer(raw []byte) (*containerInput, *corev1.Container, error) {
	var in containerInput
	if err := json.Unmarshal(raw, &in); err != nil {
		return nil, nil, err
	}
	c, err := findContainer(&in.Pod.Spec, in.Container)
	if err != nil {
		return nil, nil, err
	}
	return &in, c, setGates(in.FeatureGates)
}

func restartAction(b bool) string {
	if b {
		return "Restart"
	}
	return "DoNotRestart"
}

func upstreamContainerRestart(raw []byte) (map[string]any, error) {
	in, c, err := decodeContainer(raw)
	if err != nil {
		return nil, err
	}
	return map[string]any{"action": restartAction(kubeletShouldRestart(*c, in.Pod.Spec, in.ExitCode))}, nil
}

func upstreamContainerRestartable(raw []byte) (map[string]any, error) {
	in, c, err := decodeContainer(raw)
	if err != nil {
		return nil, err
	}
	return map[string]any{"restartable": kubeletRestartable(in.Pod.Spec, *c)}, nil
}

// upstreamMatchRestartRule: upstream returns the rule itself; its position is the shortest
// prefix of the rule list for which upstream finds a match.
func upstreamMatchRestartRule(raw []byte) (map[string]any, error) {
	in, c, err := decodeContainer(raw)
	if err != nil {
		return nil, err
	}
	k, matched := matchingRuleIndex(*c, in.ExitCode)
	if !matched {
		return map[string]any{"matched": false, "ruleIndex": nil}, nil
	}
	if k >= 0 {
		return map[string]any{"matched": true, "ruleIndex": k}, nil
	}
	return nil, fmt.Errorf("match without a matching prefix")
}

type validateInput struct {
	Object       json.RawMessage `json:"object"`
	FeatureGates map[string]bool `json:"featureGates"`
}

func ctxNS() context.Context {
	return genericapirequest.WithNamespace(context.Background(), "default")
}

// admitPod does what the API server does to a Pod on create before validation: decode with
// defaulting, convert to the internal type, PrepareForCreate (drops fields of disabled gates).
// It returns the internal Pod and its v1 form (what restartkit is given).
func admitPod(obj []byte) (*api.Pod, *corev1.Pod, error) {
	var v corev1.Pod
	if err := json.Unmarshal(obj, &v); err != nil {
		return nil, nil, err
	}
	legacyscheme.Scheme.Default(&v)
	var p api.Pod
	if err := legacyscheme.Scheme.Convert(&v, &p, nil); err != nil {
		return nil, nil, err
	}
	podregistry.Strategy.PrepareForCreate(ctxNS(), &p)
	var back corev1.Pod
	if err := legacyscheme.Scheme.Convert(&p, &back, nil); err != nil {
		return nil, nil, err
	}
	back.APIVersion, back.Kind = "v1", "Pod"
	return &p, &back, nil
}

func admitJob(obj []byte) (*batch.Job, *batchv1.Job, error) {
	var v batchv1.Job
	if err := json.Unmarshal(obj, &v); err != nil {
		return nil, nil, err
	}
	legacyscheme.Scheme.Default(&v)
	var j batch.Job
	if err := legacyscheme.Scheme.Convert(&v, &j, nil); err != nil {
		return nil, nil, err
	}
	jobregistry.Strategy.PrepareForCreate(ctxNS(), &j)
	var back batchv1.Job
	if err := legacyscheme.Scheme.Convert(&j, &back, nil); err != nil {
		return nil, nil, err
	}
	back.APIVersion, back.Kind = "batch/v1", "Job"
	return &j, &back, nil
}

// goAddress: a pointer as Go's %#v prints it, which apimachinery before v0.34 uses for struct
// values. The address is no fact about the object: both sides write it 0x….
var goAddress = regexp.MustCompile(`\(0x[0-9a-f]+\)`)

func maskAddresses(msg string) string { return goAddress.ReplaceAllString(msg, "(0x…)") }

func errorsExpect(errs field.ErrorList) map[string]any {
	out := make([]map[string]any, 0, len(errs))
	seen := map[string]bool{}
	for _, e := range errs {
		k := e.Field + "\x00" + string(e.Type)
		if seen[k] {
			continue
		}
		seen[k] = true
		out = append(out, map[string]any{"field": e.Field, "type": string(e.Type), "message": maskAddresses(e.ErrorBody())})
	}
	sort.Slice(out, func(i, j int) bool {
		return fmt.Sprint(out[i]["field"], out[i]["type"]) < fmt.Sprint(out[j]["field"], out[j]["type"])
	})
	return map[string]any{"valid": len(errs) == 0, "errors": out}
}

// gatedValidateInput decodes a validate input and sets its feature gates for upstream's code.
func gatedValidateInput(raw []byte) (validateInput, error) {
	var in validateInput
	if err := json.Unmarshal(raw, &in); err != nil {
		return in, err
	}
	return in, setGates(in.FeatureGates)
}

// preparedValidateInput: the validate input both sides are given: the object as admitted,
// less what stripNulls drops, with the case's gates.
func preparedValidateInput(obj any, gates map[string]bool) ([]byte, error) {
	b, err := json.Marshal(obj)
	if err != nil {
		return nil, err
	}
	return json.Marshal(map[string]any{"object": json.RawMessage(stripNulls(b)), "featureGates": gates})
}

// prepareValidate turns a generated validate input into the one both sides see: the object as
// the API server has it right before validation.
func prepareValidate(raw []byte) ([]byte, error) {
	in, err := gatedValidateInput(raw)
	if err != nil {
		return nil, err
	}
	var kind struct{ Kind string }
	_ = json.Unmarshal(in.Object, &kind)
	var obj any
	switch kind.Kind {
	case "Pod":
		_, obj, err = admitPod(in.Object)
	case "Job":
		_, obj, err = admitJob(in.Object)
	default:
		return nil, fmt.Errorf("kind %q", kind.Kind)
	}
	if err != nil {
		return nil, err
	}
	return preparedValidateInput(obj, in.FeatureGates)
}

// stripNulls drops `"creationTimestamp":null` and empty status objects the Go encoder writes.
func stripNulls(b []byte) []byte {
	var v any
	if json.Unmarshal(b, &v) != nil {
		return b
	}
	out, err := json.Marshal(prune(v))
	if err != nil {
		return b
	}
	return out
}

func prune(v any) any {
	switch t := v.(type) {
	case map[string]any:
		for k, x := range t {
			x = prune(x)
			if x == nil {
				delete(t, k)
				continue
			}
			if m, ok := x.(map[string]any); ok && len(m) == 0 {
				delete(t, k)
				continue
			}
			t[k] = x
		}
		return t
	case []any:
		for i := range t {
			t[i] = prune(t[i])
		}
		return t
	}
	return v
}

func upstreamValidate(raw []byte) (map[string]any, error) {
	in, err := gatedValidateInput(raw)
	if err != nil {
		return nil, err
	}
	var kind struct{ Kind string }
	_ = json.Unmarshal(in.Object, &kind)
	switch kind.Kind {
	case "Pod":
		p, _, err := admitPod(in.Object)
		if err != nil {
			return nil, err
		}
		return errorsExpect(podregistry.Strategy.Validate(ctxNS(), p)), nil
	case "Job":
		j, _, err := admitJob(in.Object)
		if err != nil {
			return nil, err
		}
		return errorsExpect(jobregistry.Strategy.Validate(ctxNS(), j)), nil
	}
	return nil, fmt.Errorf("kind %q", kind.Kind)
}

type transitionInput struct {
	Pod                  corev1.Pod               `json:"pod"`
	OldContainerStatuses []corev1.ContainerStatus `json:"oldContainerStatuses"`
	NewContainerStatuses []corev1.ContainerStatus `json:"newContainerStatuses"`
	FeatureGates         map[string]bool          `json:"featureGates"`
}

// upstreamStatusTransition: ValidateContainerStateTransition of a Pod status update, with the
// options the statusTransition vectors state (AllowContainerRestartPolicyRules and
// AllowRestartAllContainers true; the generator turns both gates on to match).
func upstreamStatusTransition(raw []byte) (map[string]any, error) {
	var in transitionInput
	if err := json.Unmarshal(raw, &in); err != nil {
		return nil, err
	}
	if err := setGates(in.FeatureGates); err != nil {
		return nil, err
	}
	var spec api.PodSpec
	if err := legacyscheme.Scheme.Convert(&in.Pod.Spec, &spec, nil); err != nil {
		return nil, err
	}
	conv := func(l []corev1.ContainerStatus) ([]api.ContainerStatus, error) {
		out := make([]api.ContainerStatus, len(l))
		for i := range l {
			if err := legacyscheme.Scheme.Convert(&l[i], &out[i], nil); err != nil {
				return nil, err
			}
		}
		return out, nil
	}
	oldS, err := conv(in.OldContainerStatuses)
	if err != nil {
		return nil, err
	}
	newS, err := conv(in.NewContainerStatuses)
	if err != nil {
		return nil, err
	}
	errs := transitionErrors(newS, oldS, spec)
	return map[string]any{"valid": len(errs) == 0}, nil
}
