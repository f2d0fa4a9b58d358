package main

// The workloads leg: the Pod templates of the built-in controllers (Deployment, StatefulSet,
// DaemonSet, ReplicaSet, ReplicationController, PodTemplate) and the Job template of a CronJob,
// through their registry strategies' PrepareForCreate and Validate, as the API server handles a
// create. Generated objects are valid apart from the restart and failure fields (selector,
// labels, names and schedule are fixed), so every error upstream returns is one restartkit
// models. Each expected error's full text (`field: body`) is also expected in restartkit's
// messages (`errorMessages`).
//
// The successPolicy generator for the validate(Job) leg is here too.

import (
	"encoding/json"
	"fmt"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/kubernetes/pkg/api/legacyscheme"
	"k8s.io/kubernetes/pkg/apis/apps"
	_ "k8s.io/kubernetes/pkg/apis/apps/install"
	"k8s.io/kubernetes/pkg/apis/batch"
	api "k8s.io/kubernetes/pkg/apis/core"
	daemonsetregistry "k8s.io/kubernetes/pkg/registry/apps/daemonset"
	deploymentregistry "k8s.io/kubernetes/pkg/registry/apps/deployment"
	replicasetregistry "k8s.io/kubernetes/pkg/registry/apps/replicaset"
	statefulsetregistry "k8s.io/kubernetes/pkg/registry/apps/statefulset"
	cronjobregistry "k8s.io/kubernetes/pkg/registry/batch/cronjob"
	jobregistry "k8s.io/kubernetes/pkg/registry/batch/job"
	podtemplateregistry "k8s.io/kubernetes/pkg/registry/core/podtemplate"
	rcregistry "k8s.io/kubernetes/pkg/registry/core/replicationcontroller"
)

// workloadKind: the v1 type the object decodes into, the internal type, and the strategy.
type workloadKind struct {
	apiVersion string
	external   func() runtime.Object
	internal   func() runtime.Object
	prepare    func(runtime.Object)
	validate   func(runtime.Object) field.ErrorList
}

var workloadKinds = map[string]workloadKind{
	"Deployment": {"apps/v1", func() runtime.Object { return &appsv1.Deployment{} }, func() runtime.Object { return &apps.Deployment{} },
		func(o runtime.Object) { deploymentregistry.Strategy.PrepareForCreate(ctxNS(), o) },
		func(o runtime.Object) field.ErrorList { return deploymentregistry.Strategy.Validate(ctxNS(), o) }},
	"StatefulSet": {"apps/v1", func() runtime.Object { return &appsv1.StatefulSet{} }, func() runtime.Object { return &apps.StatefulSet{} },
		func(o runtime.Object) { statefulsetregistry.Strategy.PrepareForCreate(ctxNS(), o) },
		func(o runtime.Object) field.ErrorList { return statefulsetregistry.Strategy.Validate(ctxNS(), o) }},
	"DaemonSet": {"apps/v1", func() runtime.Object { return &appsv1.DaemonSet{} }, func() runtime.Object { return &apps.DaemonSet{} },
		func(o runtime.Object) { daemonsetregistry.Strategy.PrepareForCreate(ctxNS(), o) },
		func(o runtime.Object) field.ErrorList { return daemonsetregistry.Strategy.Validate(ctxNS(), o) }},
	"ReplicaSet": {"apps/v1", func() runtime.Object { return &appsv1.ReplicaSet{} }, func() runtime.Object { return &apps.ReplicaSet{} },
		func(o runtime.Object) { replicasetregistry.Strategy.PrepareForCreate(ctxNS(), o) },
		func(o runtime.Object) field.ErrorList { return replicasetregistry.Strategy.Validate(ctxNS(), o) }},
	"ReplicationController": {"v1", func() runtime.Object { return &corev1.ReplicationController{} }, func() runtime.Object { return &api.ReplicationController{} },
		func(o runtime.Object) { rcregistry.Strategy.PrepareForCreate(ctxNS(), o) },
		func(o runtime.Object) field.ErrorList { return rcregistry.Strategy.Validate(ctxNS(), o) }},
	"PodTemplate": {"v1", func() runtime.Object { return &corev1.PodTemplate{} }, func() runtime.Object { return &api.PodTemplate{} },
		func(o runtime.Object) { podtemplateregistry.Strategy.PrepareForCreate(ctxNS(), o) },
		func(o runtime.Object) field.ErrorList { return podtemplateregistry.Strategy.Validate(ctxNS(), o) }},
	"CronJob": {"batch/v1", func() runtime.Object { return &batchv1.CronJob{} }, func() runtime.Object { return &batch.CronJob{} },
		func(o runtime.Object) { cronjobregistry.Strategy.PrepareForCreate(ctxNS(), o) },
		func(o runtime.Object) field.ErrorList { return cronjobregistry.Strategy.Validate(ctxNS(), o) }},
}

var workloadKindNames = []string{"Deployment", "StatefulSet", "DaemonSet", "ReplicaSet", "ReplicationController", "PodTemplate", "CronJob"}

// admitWorkload: decode with v1 defaulting, convert to the internal type, PrepareForCreate;
// returns the internal object and its v1 form (what restartkit is given).
func admitWorkload(obj []byte) (runtime.Object, any, error) {
	var kind struct{ Kind string }
	_ = json.Unmarshal(obj, &kind)
	k, ok := workloadKinds[kind.Kind]
	if !ok {
		return nil, nil, fmt.Errorf("kind %q", kind.Kind)
	}
	ext := k.external()
	if err := json.Unmarshal(obj, ext); err != nil {
		return nil, nil, err
	}
	legacyscheme.Scheme.Default(ext)
	in := k.internal()
	if err := legacyscheme.Scheme.Convert(ext, in, nil); err != nil {
		return nil, nil, err
	}
	k.prepare(in)
	back := k.external()
	if err := legacyscheme.Scheme.Convert(in, back, nil); err != nil {
		return nil, nil, err
	}
	b, err := json.Marshal(back)
	if err != nil {
		return nil, nil, err
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, nil, err
	}
	m["apiVersion"], m["kind"] = k.apiVersion, kind.Kind
	return in, m, nil
}

func prepareWorkload(raw []byte) ([]byte, error) {
	in, err := gatedValidateInput(raw)
	if err != nil {
		return nil, err
	}
	_, obj, err := admitWorkload(in.Object)
	if err != nil {
		return nil, err
	}
	return preparedValidateInput(obj, in.FeatureGates)
}

func upstreamWorkload(raw []byte) (map[string]any, error) {
	in, err := gatedValidateInput(raw)
	if err != nil {
		return nil, err
	}
	obj, _, err := admitWorkload(in.Object)
	if err != nil {
		return nil, err
	}
	var kind struct{ Kind string }
	_ = json.Unmarshal(in.Object, &kind)
	return withMessages(workloadKinds[kind.Kind].validate(obj), nil), nil
}

// withMessages is errorsExpect plus `errorMessages`: the full text of each error whose field
// `keep` accepts (nil: every error), which restartkit's messages must contain.
func withMessages(errs field.ErrorList, keep func(string) bool) map[string]any {
	exp := errorsExpect(errs)
	msgs := []any{}
	for _, e := range errs {
		if keep == nil || keep(e.Field) {
			msgs = append(msgs, maskAddresses(e.Error()))
		}
	}
	if len(msgs) > 0 {
		exp["errorMessages"] = msgs
	}
	return exp
}

// upstreamValidateJobMessages: upstreamValidate, plus the successPolicy errors' full texts.
func upstreamValidateJobMessages(raw []byte) (map[string]any, error) {
	in, err := gatedValidateInput(raw)
	if err != nil {
		return nil, err
	}
	j, _, err := admitJob(in.Object)
	if err != nil {
		return nil, err
	}
	errs := jobregistry.Strategy.Validate(ctxNS(), j)
	return withMessages(errs, func(f string) bool { return strings.Contains(f, "successPolicy") }), nil
}

// ---------------------------------------------------------------------------------------------
// Generators.
// ---------------------------------------------------------------------------------------------

// activeDeadline: a Pod's activeDeadlineSeconds, valid (1..MaxInt32) or not.
func (g gen) activeDeadline() any {
	return g.pick(0, -1, 1, 30, 3600, 2147483647, 2147483648)
}

// templateSpec: a Pod spec with restart fields for a controller's template: the pod-spec
// generator's containers and restartPolicy, sometimes without restartPolicy (defaulted to
// Always), with activeDeadlineSeconds or an ephemeral container.
func (g gen) templateSpec() map[string]any {
	spec, _ := g.restartSpec(g.chance(0.6))
	switch {
	case g.chance(0.3):
		delete(spec, "restartPolicy")
	case g.chance(0.3):
		spec["restartPolicy"] = "Always"
	}
	if g.chance(0.15) {
		spec["activeDeadlineSeconds"] = g.activeDeadline()
	}
	if g.chance(0.05) {
		e := map[string]any{"name": "debugger", "image": "busybox:1.36"}
		if g.chance(0.5) {
			e["restartPolicy"] = "Never"
		}
		spec["ephemeralContainers"] = []any{e}
	}
	return spec
}

func (g gen) validateWorkload() map[string]any {
	kind := workloadKindNames[g.r.IntN(len(workloadKindNames))]
	labels := map[string]any{"app": "w"}
	meta := map[string]any{"name": "w", "namespace": "default"}
	template := map[string]any{"metadata": map[string]any{"labels": labels}, "spec": g.templateSpec()}
	var obj map[string]any
	switch kind {
	case "PodTemplate":
		obj = map[string]any{"metadata": meta, "template": template}
	case "ReplicationController":
		obj = map[string]any{"metadata": meta, "spec": map[string]any{"selector": labels, "template": template}}
	case "CronJob":
		obj = map[string]any{"metadata": meta, "spec": map[string]any{"schedule": "*/5 * * * *",
			"jobTemplate": map[string]any{"spec": g.cronJobSpec(template)}}}
	default:
		obj = map[string]any{"metadata": meta, "spec": map[string]any{"selector": map[string]any{"matchLabels": labels}, "template": template}}
	}
	obj["apiVersion"], obj["kind"] = workloadKinds[kind].apiVersion, kind
	gates := g.restartGates()
	gates["ContainerRestartRules"] = g.chance(0.8)
	if !gates["ContainerRestartRules"] {
		gates["RestartAllContainersOnContainerExits"] = false // it depends on ContainerRestartRules
	}
	return map[string]any{"object": obj, "featureGates": gatesOf(gates)}
}

// cronJobSpec: a CronJob's job template (never defaulted by SetDefaults_Job): the Pod
// template's restartPolicy mostly a Job's, completion mode, completions and successPolicy
// sometimes, a podFailurePolicy now and then.
func (g gen) cronJobSpec(template map[string]any) map[string]any {
	spec := template["spec"].(map[string]any)
	if g.chance(0.7) {
		spec["restartPolicy"] = g.pick("Never", "OnFailure").(string)
	}
	js := map[string]any{"template": template}
	if g.chance(0.4) {
		js["completionMode"] = g.pick("Indexed", "NonIndexed")
	}
	if g.chance(0.6) {
		js["completions"] = g.pick(1, 3, 5, 10)
	}
	if g.chance(0.3) {
		js["parallelism"] = g.pick(1, 2)
	}
	if g.chance(0.3) {
		js["successPolicy"] = g.successPolicy(5)
	}
	if g.chance(0.1) {
		js["podFailurePolicy"] = map[string]any{"rules": []any{map[string]any{"action": "FailJob", "onExitCodes": map[string]any{"operator": "In", "values": []any{42}}}}}
	}
	return js
}

// succeededIndexes: interval lists, valid and malformed, in and beyond [0, completions).
func (g gen) succeededIndexes(completions int) string {
	c := completions
	if c < 1 {
		c = 1
	}
	switch g.r.IntN(16) {
	case 0:
		return g.pick("1-", "-1", "3-1", "1-1", "0,0", "1,,2", ",", "0,", " 1", "1 ", "1, 2", "a", "1-2-3", "+1", "+", "01", "0x1", "1_0", "", "٣").(string)
	case 1:
		return g.pick("99999999999999999999", "9223372036854775807", "9223372036854775808", "2147483648", "4294967296").(string)
	case 2:
		return fmt.Sprint(c + g.r.IntN(3)) // at or beyond completions
	case 3:
		return fmt.Sprintf("0-%d", c+g.r.IntN(2)-1)
	case 4:
		// long lists; now and then past the 64 KiB limit
		n := 1 + g.r.IntN(8)
		if g.chance(0.3) {
			return strings.Repeat("0,", 33000) + "1"
		}
		parts := make([]string, n)
		for i := range parts {
			parts[i] = fmt.Sprint(i * 2)
		}
		return strings.Join(parts, ",")
	default:
		// increasing intervals, sometimes overlapping or out of order
		var parts []string
		at := 0
		for range 1 + g.r.IntN(3) {
			if at >= c {
				break
			}
			x := at + g.r.IntN(2)
			if x >= c {
				x = c - 1
			}
			if g.chance(0.4) && x+1 < c {
				y := x + 1 + g.r.IntN(c-x-1)
				parts = append(parts, fmt.Sprintf("%d-%d", x, y))
				at = y + 1
			} else {
				parts = append(parts, fmt.Sprint(x))
				at = x + 1
			}
			if g.chance(0.1) {
				at -= 1 + g.r.IntN(2) // overlap with what came before
				if at < 0 {
					at = 0
				}
			}
		}
		if g.chance(0.1) && len(parts) > 1 {
			parts[0], parts[1] = parts[1], parts[0]
		}
		return strings.Join(parts, ",")
	}
}

// successPolicy: 0–21 rules (20 is the limit), each with succeededIndexes, succeededCount, both
// or neither; counts from negative to beyond completions.
func (g gen) successPolicy(completions int) map[string]any {
	n := 1 + g.r.IntN(3)
	switch g.r.IntN(20) {
	case 0:
		n = 0
	case 1:
		n = 20 + g.r.IntN(2)
	}
	rules := make([]any, n)
	for i := range rules {
		r := map[string]any{}
		switch g.r.IntN(10) {
		case 0:
			// neither
		case 1, 2, 3:
			r["succeededIndexes"] = g.succeededIndexes(completions)
		case 4, 5, 6:
			r["succeededCount"] = g.succeededCount(completions)
		default:
			r["succeededIndexes"] = g.succeededIndexes(completions)
			r["succeededCount"] = g.succeededCount(completions)
		}
		rules[i] = r
	}
	return map[string]any{"rules": rules}
}

func (g gen) succeededCount(completions int) int {
	switch g.r.IntN(6) {
	case 0:
		return g.pick(-1, 0, -2147483648, 2147483647).(int)
	case 1:
		return completions + 1 + g.r.IntN(3)
	default:
		return g.r.IntN(completions + 1)
	}
}

// addSuccessPolicy: a successPolicy on a generated Job now and then, mostly Indexed with
// completions, sometimes NonIndexed.
func (g gen) addSuccessPolicy(spec map[string]any) {
	if !g.chance(0.35) {
		return
	}
	completions := g.pick(1, 3, 5, 8).(int)
	if g.chance(0.85) {
		spec["completionMode"] = "Indexed"
		spec["completions"] = completions
	} else if g.chance(0.5) {
		spec["completionMode"] = "NonIndexed"
	}
	if c, ok := spec["completions"].(int); ok {
		completions = c
	}
	spec["successPolicy"] = g.successPolicy(completions)
}
