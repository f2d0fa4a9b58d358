package main

// The strict decoding leg: what kube-apiserver says of a create under `fieldValidation=Strict`
// (kubectl's default --validate=strict) when the object carries fields the minor's API types do
// not have: the request is refused with `strict decoding error: unknown field "<path>"`, one per
// field, before validation runs (sigs.k8s.io/json's UnmarshalStrict, as the API server's JSON
// serializer calls it with Strict on). Objects are valid skeletons of every workload kind, with
// fields inserted at every depth: misspellings, fields later minors added (restartPolicyRules
// from 1.34) and fields older minors had. Without an unknown field the expectation is the
// create's validation (as the validate legs compute it). restartkit is asked with
// `fieldValidation: Strict`; its errors must be exactly these.

import (
	"encoding/json"
	"fmt"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	kjson "sigs.k8s.io/json"
)

// strictKinds: each kind's Go type and where its Pod spec lies.
var strictKinds = map[string]struct {
	apiVersion string
	newObj     func() any
	podSpec    []string
}{
	"Pod":         {"v1", func() any { return &corev1.Pod{} }, []string{"spec"}},
	"Job":         {"batch/v1", func() any { return &batchv1.Job{} }, []string{"spec", "template", "spec"}},
	"CronJob":     {"batch/v1", func() any { return &batchv1.CronJob{} }, []string{"spec", "jobTemplate", "spec", "template", "spec"}},
	"Deployment":  {"apps/v1", func() any { return &appsv1.Deployment{} }, []string{"spec", "template", "spec"}},
	"StatefulSet": {"apps/v1", func() any { return &appsv1.StatefulSet{} }, []string{"spec", "template", "spec"}},
	"DaemonSet":   {"apps/v1", func() any { return &appsv1.DaemonSet{} }, []string{"spec", "template", "spec"}},
}

var strictKindNames = []string{"Pod", "Job", "CronJob", "Deployment", "StatefulSet", "DaemonSet"}

// strictSkeleton: a valid object of the kind, at every supported minor.
func strictSkeleton(kind string) map[string]any {
	labels := map[string]any{"app": "x"}
	podSpec := func(restart string) map[string]any {
		return map[string]any{
			"restartPolicy": restart,
			"containers": []any{map[string]any{"name": "main", "image": "busybox:1.36",
				"livenessProbe": map[string]any{"httpGet": map[string]any{"path": "/", "port": 8080}},
				"resources":     map[string]any{"limits": map[string]any{"cpu": "1"}}}},
			"volumes":  []any{map[string]any{"name": "scratch", "emptyDir": map[string]any{"sizeLimit": "1Gi"}}},
			"affinity": map[string]any{"nodeAffinity": map[string]any{}},
		}
	}
	template := func(restart string) map[string]any {
		return map[string]any{"metadata": map[string]any{"labels": labels}, "spec": podSpec(restart)}
	}
	obj := map[string]any{"apiVersion": strictKinds[kind].apiVersion, "kind": kind,
		// The API server gives every object a UID before validation (the Job strategy reads it).
		"metadata": map[string]any{"name": "w", "namespace": "default", "labels": labels, "uid": "1a2b3c"}}
	switch kind {
	case "Pod":
		obj["spec"] = podSpec("Never")
	case "Job":
		obj["spec"] = map[string]any{"backoffLimit": 2, "template": template("Never")}
	case "CronJob":
		obj["spec"] = map[string]any{"schedule": "*/5 * * * *", "jobTemplate": map[string]any{"spec": map[string]any{"template": template("OnFailure")}}}
	default:
		spec := map[string]any{"selector": map[string]any{"matchLabels": labels}, "template": template("Always")}
		if kind == "StatefulSet" {
			spec["serviceName"] = "w"
		}
		obj["spec"] = spec
	}
	return obj
}

// strictInsertions: fields to add (a path below the object and a value), misspelt, or named as
// some minors name them.
func strictInsertions(kind string) [][2]any {
	ps := strings.Join(strictKinds[kind].podSpec, ".")
	c := ps + ".containers.0"
	ins := [][2]any{
		{"metadata.lables", map[string]any{}},
		{"status.whatever", 1},
		{ps + ".restartpolicy", "Never"},
		{ps + ".terminationGracePeriod", 30},
		{c + ".restartPolicyRule", []any{}},
		{c + ".imagePullPolicyy", "Always"},
		{c + ".livenessProbe.httpGet.prot", 80},
		{c + ".resources.limit", map[string]any{"cpu": "1"}},
		{ps + ".volumes.0.emptyDir.sizeLimt", "1Gi"},
		{ps + ".affinity.nodeAffinity.requiredDuringScheduling", map[string]any{}},
		// restartPolicyRules exist from 1.34 (with a container restartPolicy, which exists since
		// sidecars, but is valid on a regular container only from 1.34 too).
		{c + ".restartPolicyRules", []any{map[string]any{"action": "Restart", "exitCodes": map[string]any{"operator": "In", "values": []any{42}}}}},
		// resizePolicy: every supported minor has it.
		{c + ".resizePolicy", []any{map[string]any{"resourceName": "cpu", "restartPolicy": "NotRequired"}}},
	}
	switch kind {
	case "Job":
		ins = append(ins, [2]any{"spec.backofLimit", 3}, [2]any{"spec.podFailurePolicy", map[string]any{"rules": []any{
			map[string]any{"action": "Ignore", "onPodCondition": []any{map[string]any{"type": "DisruptionTarget"}}}}}})
	case "CronJob":
		ins = append(ins, [2]any{"spec.jobTemplate.spec.backofLimit", 3})
	case "Deployment":
		ins = append(ins, [2]any{"spec.strategy.rollingUpdat", map[string]any{}})
	}
	return ins
}

// setAt sets a dotted path (numbers index lists) in obj, creating maps on the way.
func setAt(obj map[string]any, path string, v any) {
	parts := strings.Split(path, ".")
	var cur any = obj
	for i, p := range parts {
		last := i == len(parts)-1
		switch node := cur.(type) {
		case map[string]any:
			if last {
				node[p] = v
				return
			}
			next, ok := node[p]
			if !ok {
				next = map[string]any{}
				node[p] = next
			}
			cur = next
		case []any:
			var k int
			if _, err := fmt.Sscan(p, &k); err != nil || k >= len(node) {
				return
			}
			if last {
				node[k] = v
				return
			}
			cur = node[k]
		default:
			return
		}
	}
}

// container fields go together: a rule needs the container's restartPolicy.
func (g gen) validateStrict() map[string]any {
	kind := strictKindNames[g.r.IntN(len(strictKindNames))]
	obj := strictSkeleton(kind)
	ins := strictInsertions(kind)
	for n := g.r.IntN(4); n > 0; n-- {
		i := ins[g.r.IntN(len(ins))]
		path := i[0].(string)
		setAt(obj, path, i[1])
		if strings.HasSuffix(path, ".restartPolicyRules") {
			setAt(obj, strings.TrimSuffix(path, "Rules"), "Never")
		}
	}
	return map[string]any{"object": obj, "fieldValidation": "Strict",
		"featureGates": gatesOf(map[string]bool{"ContainerRestartRules": g.chance(0.7)})}
}

// upstreamStrict: the strict decoding errors of the object, or, without any, the create's
// validation.
func upstreamStrict(raw []byte) (map[string]any, error) {
	in, err := gatedValidateInput(raw)
	if err != nil {
		return nil, err
	}
	var kind struct{ Kind string }
	_ = json.Unmarshal(in.Object, &kind)
	k, ok := strictKinds[kind.Kind]
	if !ok {
		return nil, fmt.Errorf("kind %q", kind.Kind)
	}
	strictErrs, err := kjson.UnmarshalStrict(in.Object, k.newObj())
	if err != nil {
		return nil, err
	}
	if len(strictErrs) > 0 {
		errs := []any{}
		for _, e := range strictErrs {
			errs = append(errs, map[string]any{"field": "", "type": nil, "message": "strict decoding error: " + e.Error()})
		}
		return map[string]any{"valid": false, "errors": errs}, nil
	}
	switch kind.Kind {
	case "Pod", "Job":
		return upstreamValidate(raw)
	}
	return upstreamWorkload(raw)
}
