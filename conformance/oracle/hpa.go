package main

// The validate(HorizontalPodAutoscaler) leg: autoscaling/v1 and autoscaling/v2
// HorizontalPodAutoscalers drawn around ValidateHorizontalPodAutoscaler (minReplicas and
// maxReplicas in and out of range and crossed; scaleTargetRef kinds, names and apiVersions
// right and wrong, ReplicationController's empty group; v1's targetCPUUtilizationPercentage;
// v2 metrics of every source type, with their member missing, doubled or of another type,
// metric names, resource and container names, and targets of every type with values,
// averageValues and utilizations positive, zero and negative; v2 behaviors with their rules
// unset, empty or wrong, and, where the release has it, a tolerance), with HPAScaleToZero,
// HPAConfigurableTolerance and DeclarativeValidationBeta varied where the release lets them be
// set, through the create path: decoding, the version's defaulting, conversion (v1's CPU
// metric), PrepareForCreate (the tolerance dropped without its gate), and the release's create
// validation (createValidation, rbac_create_*.go; from 1.37 the declarative rules, which read
// the request's version). Full messages are compared.

import (
	"encoding/json"

	autoscalingv1 "k8s.io/api/autoscaling/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	"k8s.io/apimachinery/pkg/runtime"
	genericapirequest "k8s.io/apiserver/pkg/endpoints/request"
	"k8s.io/kubernetes/pkg/api/legacyscheme"
	"k8s.io/kubernetes/pkg/apis/autoscaling"
	hpastrategy "k8s.io/kubernetes/pkg/registry/autoscaling/horizontalpodautoscaler"
)

func (g gen) hpaRef(scaleTarget bool) map[string]any {
	r := map[string]any{}
	kinds := []any{"Deployment", "StatefulSet", "ReplicationController"}
	if !scaleTarget {
		kinds = []any{"Service", "Ingress", "Pod"}
	}
	if g.chance(0.96) {
		r["kind"] = g.mistake(0.12, kinds, []any{"", "a/b", ".", "..", "a%b"})
	}
	if g.chance(0.96) {
		r["name"] = g.mistake(0.12, []any{"web", "front-end", "db.primary"}, []any{"", "a/b", "..", "x%2f"})
	}
	if g.chance(0.9) {
		r["apiVersion"] = g.mistake(0.2, []any{"apps/v1", "networking.k8s.io/v1", "example.com/v1alpha1"},
			[]any{"", "v1", "/v1", "apps/", "a/b/c", "/"})
	}
	return r
}

func (g gen) hpaQuantity() any {
	return g.mistake(0.35, []any{"10", "500m", "1.5", "100Mi", "1e3", "2k"}, []any{"0", "-1", "-0.5", "0.0", "-100Mi", "-1e3"})
}

func (g gen) hpaTarget() map[string]any {
	t := map[string]any{}
	if g.chance(0.9) {
		t["type"] = g.mistake(0.15, []any{"Utilization", "Value", "AverageValue"}, []any{"", "Average", "utilization"})
	}
	if g.chance(0.4) {
		t["averageUtilization"] = g.mistake(0.3, []any{50, 80, 100, 150}, []any{0, -1})
	}
	if g.chance(0.35) {
		t["value"] = g.hpaQuantity()
	}
	if g.chance(0.4) {
		t["averageValue"] = g.hpaQuantity()
	}
	return t
}

func (g gen) hpaMetricID() map[string]any {
	id := map[string]any{}
	if g.chance(0.9) {
		id["name"] = g.mistake(0.2, []any{"qps", "requests-per-second", "queue.depth"}, []any{"", "a/b", "..", "50%"})
	}
	if g.chance(0.2) {
		id["selector"] = map[string]any{"matchLabels": map[string]any{"app": "web"}}
	}
	return id
}

func (g gen) hpaSource(member string) map[string]any {
	switch member {
	case "object":
		return map[string]any{"describedObject": g.hpaRef(false), "metric": g.hpaMetricID(), "target": g.hpaTarget()}
	case "external", "pods":
		return map[string]any{"metric": g.hpaMetricID(), "target": g.hpaTarget()}
	}
	s := map[string]any{"target": g.hpaTarget()}
	if g.chance(0.9) {
		s["name"] = g.mistake(0.3, []any{"cpu", "memory"}, []any{"", "gpu", "nvidia.com/gpu", "example.com/foo", "a b", "hugepages-2Mi",
			"requests.cpu", "kubernetes.io/x", "ephemeral-storage", "example.com/", "-bad/x"})
	}
	if member == "containerResource" && g.chance(0.9) {
		s["container"] = g.mistake(0.25, []any{"app", "sidecar", "web-1"}, []any{"", "App", "a.b", "a_b",
			"a-very-long-container-name-that-is-well-over-sixty-three-characters-long"})
	}
	return s
}

var hpaMembers = map[string]string{"Object": "object", "External": "external", "Pods": "pods", "Resource": "resource",
	"ContainerResource": "containerResource"}

func (g gen) hpaMetric() map[string]any {
	m := map[string]any{}
	t := g.mistake(0.15, []any{"Object", "External", "Pods", "Resource", "ContainerResource"}, []any{"", "Memory", "object"}).(string)
	if t != "" || g.chance(0.5) {
		m["type"] = t
	}
	if member, ok := hpaMembers[t]; ok && g.chance(0.85) {
		m[member] = g.hpaSource(member)
	}
	if g.chance(0.2) {
		other := g.pick("object", "external", "pods", "resource", "containerResource").(string)
		m[other] = g.hpaSource(other)
	}
	return m
}

func (g gen) hpaRules(tolerance bool) map[string]any {
	r := map[string]any{}
	if g.chance(0.4) {
		r["stabilizationWindowSeconds"] = g.mistake(0.3, []any{0, 60, 300, 3600}, []any{-1, 3601})
	}
	if g.chance(0.4) {
		r["selectPolicy"] = g.mistake(0.25, []any{"Max", "Min", "Disabled"}, []any{"", "Fastest", "max"})
	}
	if g.chance(0.6) {
		policies := []any{}
		for i := g.r.IntN(3); i > 0; i-- {
			p := map[string]any{}
			if g.chance(0.95) {
				p["type"] = g.mistake(0.15, []any{"Pods", "Percent"}, []any{"", "Nodes", "pods"})
			}
			if g.chance(0.95) {
				p["value"] = g.mistake(0.2, []any{1, 4, 100}, []any{0, -3})
			}
			if g.chance(0.95) {
				p["periodSeconds"] = g.mistake(0.2, []any{15, 60, 1800}, []any{0, -1, 1801})
			}
			policies = append(policies, p)
		}
		r["policies"] = policies
	}
	if t := g.mistake(0.35, []any{"0.1", "0", "50m", "1"}, []any{"-0.1", "-1", "-5m"}); tolerance && g.chance(0.35) {
		r["tolerance"] = t
	}
	return r
}

func (g gen) validateHPA() map[string]any {
	v1 := g.chance(0.3)
	spec := map[string]any{}
	if g.chance(0.95) {
		spec["scaleTargetRef"] = g.hpaRef(true)
	}
	if g.chance(0.7) {
		spec["minReplicas"] = g.mistake(0.25, []any{1, 2, 3}, []any{0, -1, 10})
	}
	if g.chance(0.92) {
		spec["maxReplicas"] = g.mistake(0.2, []any{3, 5, 10, 20}, []any{0, -2, 1})
	}
	// The field exists from 1.33 (the gate with it).
	tolerance := knownGates["HPAConfigurableTolerance"]
	if v1 {
		if g.chance(0.5) {
			spec["targetCPUUtilizationPercentage"] = g.mistake(0.3, []any{50, 80}, []any{0, -5})
		}
	} else {
		if g.chance(0.75) {
			metrics := []any{}
			for i := g.r.IntN(4); i > 0; i-- {
				metrics = append(metrics, g.hpaMetric())
			}
			spec["metrics"] = metrics
		}
		if g.chance(0.5) {
			b := map[string]any{}
			for _, dir := range []string{"scaleUp", "scaleDown"} {
				if g.chance(0.6) {
					b[dir] = g.hpaRules(tolerance)
				}
			}
			spec["behavior"] = b
		}
	}
	apiVersion := "autoscaling/v2"
	if v1 {
		apiVersion = "autoscaling/v1"
	}
	obj := map[string]any{"apiVersion": apiVersion, "kind": "HorizontalPodAutoscaler",
		"metadata": map[string]any{"name": g.pick("web", "front-end", "hpa.example").(string), "namespace": "default"}, "spec": spec}
	return map[string]any{"object": obj, "featureGates": gatesOf(g.drawGates("HPAScaleToZero", "HPAConfigurableTolerance", "DeclarativeValidationBeta"))}
}

func upstreamHPA(raw []byte) (map[string]any, error) {
	in, err := gatedValidateInput(raw)
	if err != nil {
		return nil, err
	}
	var head struct {
		APIVersion string `json:"apiVersion"`
	}
	if err := json.Unmarshal(in.Object, &head); err != nil {
		return nil, err
	}
	version := "v2"
	var versioned runtime.Object = &autoscalingv2.HorizontalPodAutoscaler{}
	if head.APIVersion == "autoscaling/v1" {
		version = "v1"
		versioned = &autoscalingv1.HorizontalPodAutoscaler{}
	}
	if err := json.Unmarshal(in.Object, versioned); err != nil {
		return nil, err
	}
	legacyscheme.Scheme.Default(versioned)
	var hpa autoscaling.HorizontalPodAutoscaler
	if err := legacyscheme.Scheme.Convert(versioned, &hpa, nil); err != nil {
		return nil, err
	}
	// The request's version: 1.37's declarative rules convert the object back to it.
	ctx := genericapirequest.WithRequestInfo(ctxNSOf("default"), &genericapirequest.RequestInfo{IsResourceRequest: true,
		Verb: "create", APIGroup: "autoscaling", APIVersion: version, Resource: "horizontalpodautoscalers"})
	hpastrategy.Strategy.PrepareForCreate(ctx, &hpa)
	return withMessages(createValidation(ctx, hpastrategy.Strategy, &hpa), nil), nil
}
