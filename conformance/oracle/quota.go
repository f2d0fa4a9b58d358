package main

// The validate(ResourceQuota) and validate(LimitRange) legs: core/v1 ResourceQuotas drawn
// around ValidateResourceQuota (hard names that are no quota resource or no qualified name,
// negative and fractional quantities, quantities finer than a milli that the defaulting rounds
// up, scopes unknown, conflicting or not valid for a hard resource, the VolumeAttributesClass
// scope, scope selectors with wrong operators and values, a status the create drops) and
// LimitRanges around ValidateLimitRange (unknown and duplicate types, resource names a type
// does not take, default and defaultRequest on a Pod item, a claim item without a storage
// bound, min, defaultRequest, default and max out of order before and after the Container
// defaulting, ratios under 1 or over max/min, a resource that may not overcommit with default
// and defaultRequest apart, no name), through the create path: decoding, the v1 defaulting,
// conversion, the strategy's PrepareForCreate and Validate. Full messages are compared.

import (
	"encoding/json"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/kubernetes/pkg/api/legacyscheme"
	api "k8s.io/kubernetes/pkg/apis/core"
	limitrangeregistry "k8s.io/kubernetes/pkg/registry/core/limitrange"
	resourcequotaregistry "k8s.io/kubernetes/pkg/registry/core/resourcequota"
)

var quotaScopes = []any{"Terminating", "NotTerminating", "BestEffort", "NotBestEffort", "PriorityClass",
	"CrossNamespacePodAffinity", "VolumeAttributesClass"}

func (g gen) quotaQuantity() any {
	return g.mistake(0.25, []any{"1", "10", "500m", "2Gi", "100", "0", "1k", 4, "20Gi", "1.5"},
		[]any{"-1", "1500m", "-500m", "0.5", "1n", "1999500u", "1e3", "1.5Gi", "-0.1", 2.5})
}

func (g gen) quotaScopeList() []any {
	n := g.pick(0, 1, 1, 2, 2, 3).(int)
	out := []any{}
	for i := 0; i < n; i++ {
		out = append(out, g.mistake(0.1, quotaScopes, []any{"Bogus", "", "besteffort"}))
	}
	return out
}

func (g gen) validateResourceQuota() map[string]any {
	hard := map[string]any{}
	for i, n := 0, g.pick(0, 1, 2, 3, 4).(int); i < n; i++ {
		name := g.mistake(0.2, []any{"pods", "cpu", "memory", "requests.cpu", "requests.memory", "limits.cpu",
			"limits.memory", "requests.storage", "persistentvolumeclaims", "services", "secrets", "configmaps",
			"count/deployments.apps", "requests.nvidia.com/gpu", "services.loadbalancers", "services.nodeports",
			"requests.ephemeral-storage", "limits.ephemeral-storage", "ephemeral-storage", "hugepages-2Mi",
			"requests.hugepages-1Gi", "gold.storageclass.storage.k8s.io/requests.storage", "resourcequotas",
			"replicationcontrollers", "pods", "requests.cpu"},
			[]any{"storage", "gpus", "nvidia.com/gpu", "Bad_Name", "requests.Bad/x", "limits.nvidia.com/gpu",
				"a/b/c", "kubernetes.io/foo", "requests.kubernetes.io/x", "count/"}).(string)
		hard[name] = g.quotaQuantity()
	}
	if g.chance(0.25) {
		// A request beside its limit, over it or not (the create warning from 1.35).
		r := g.oneOf("cpu", "memory", "storage", "ephemeral-storage")
		req := "requests." + r
		if (r == "cpu" || r == "memory") && g.chance(0.4) {
			req = r
		}
		hard[req] = g.pick("1", "2", "500m", "1Gi", "2Gi").(string)
		hard["limits."+r] = g.pick("1", "2", "1000m", "1Gi", "1024Mi").(string)
	}
	spec := map[string]any{}
	if len(hard) > 0 || g.chance(0.5) {
		spec["hard"] = hard
	}
	if g.chance(0.35) {
		spec["scopes"] = g.quotaScopeList()
	}
	if g.chance(0.35) {
		var exprs []any
		for i, n := 0, g.pick(0, 1, 1, 2, 3).(int); i < n; i++ {
			e := map[string]any{
				"scopeName": g.mistake(0.1, quotaScopes, []any{"Bogus", ""}),
				"operator":  g.mistake(0.15, []any{"In", "NotIn", "Exists", "DoesNotExist", "Exists"}, []any{"", "Has", "in"}),
			}
			switch g.pick(0, 1, 2, 3).(int) {
			case 1:
				e["values"] = []any{g.pick("high", "gold").(string)}
			case 2:
				e["values"] = []any{"a", "b"}
			case 3:
				e["values"] = []any{}
			}
			exprs = append(exprs, e)
		}
		sel := map[string]any{}
		if exprs != nil || g.chance(0.5) {
			sel["matchExpressions"] = exprs
		}
		spec["scopeSelector"] = sel
	}
	md := map[string]any{"name": g.mistake(0.05, []any{"compute", "object-counts", "gold.pvcs"}, []any{"Compute", "a_b"}).(string),
		"namespace": "default"}
	obj := map[string]any{"apiVersion": "v1", "kind": "ResourceQuota", "metadata": md}
	if g.chance(0.95) {
		obj["spec"] = spec
	}
	if g.chance(0.1) {
		obj["status"] = map[string]any{"hard": map[string]any{"storage": "-1"}, "used": map[string]any{"pods": "1500m"}}
	}
	return map[string]any{"object": obj}
}

func upstreamResourceQuota(raw []byte) (map[string]any, error) {
	in, err := gatedValidateInput(raw)
	if err != nil {
		return nil, err
	}
	var v corev1.ResourceQuota
	if err := json.Unmarshal(in.Object, &v); err != nil {
		return nil, err
	}
	legacyscheme.Scheme.Default(&v)
	var q api.ResourceQuota
	if err := legacyscheme.Scheme.Convert(&v, &q, nil); err != nil {
		return nil, err
	}
	resourcequotaregistry.Strategy.PrepareForCreate(ctxNS(), &q)
	errs := resourcequotaregistry.Strategy.Validate(ctxNS(), &q)
	exp := withMessages(errs, nil)
	if len(errs) == 0 {
		// rest.BeforeCreate's WarningsOnCreate, for an object that passed (1.35 on).
		warnings := []any{}
		for _, w := range resourcequotaregistry.Strategy.WarningsOnCreate(ctxNS(), &q) {
			warnings = append(warnings, map[string]any{"message": w})
		}
		exp["warnings"] = warnings
	}
	return exp, nil
}

// limitResource: a resource name for an item of type t, mostly one it takes.
func (g gen) limitResource(t string) string {
	var valid []any
	switch t {
	case "PersistentVolumeClaim":
		valid = []any{"storage", "storage", "storage"}
	case "Pod", "Container":
		valid = []any{"cpu", "memory", "cpu", "memory", "ephemeral-storage", "example.com/gpu", "hugepages-2Mi"}
	default:
		valid = []any{"cpu", "storage", "example.com/widgets"}
	}
	return g.mistake(0.1, valid, []any{"gpu", "Bad_Name", "requests.cpu", "storage", "kubernetes.io/x", "requests.example.com/gpu"}).(string)
}

func (g gen) limitQuantity(resource string, ratio bool) any {
	if ratio {
		return g.pick("1", "2", "10", "500m", "1.5", "0.5", 3, "4")
	}
	if g.chance(0.05) {
		return g.pick("1n", "1500u", "-1", "0")
	}
	switch resource {
	case "memory", "ephemeral-storage", "hugepages-2Mi":
		return g.pick("64Mi", "128Mi", "256Mi", "1Gi", "2Gi", "2Mi")
	case "storage":
		return g.pick("1Gi", "5Gi", "10Gi", "500Mi")
	case "cpu":
		return g.pick("100m", "250m", "500m", "1", "2", 4, "0.5")
	default:
		return g.pick("1", "2", "3", 1)
	}
}

func (g gen) validateLimitRange() map[string]any {
	var limits []any
	for i, n := 0, g.pick(0, 1, 1, 2, 2, 3).(int); i < n; i++ {
		t := g.mistake(0.1, []any{"Container", "Container", "Pod", "PersistentVolumeClaim", "example.com/custom"},
			[]any{"Node", "", "bad type", "container"}).(string)
		item := map[string]any{}
		if t != "" || g.chance(0.5) {
			item["type"] = t
		}
		for _, field := range []string{"max", "min", "default", "defaultRequest", "maxLimitRequestRatio"} {
			p := 0.4
			if t == "Pod" && (field == "default" || field == "defaultRequest") {
				p = 0.1
			}
			if !g.chance(p) {
				continue
			}
			l := map[string]any{}
			for j, m := 0, g.pick(1, 1, 2).(int); j < m; j++ {
				r := g.limitResource(t)
				l[r] = g.limitQuantity(r, field == "maxLimitRequestRatio")
			}
			item[field] = l
		}
		limits = append(limits, item)
	}
	md := map[string]any{"namespace": "default"}
	if g.chance(0.9) {
		md["name"] = g.mistake(0.05, []any{"limits", "cpu-mem", "storage-bounds"}, []any{"Limits", "a_b"}).(string)
	}
	obj := map[string]any{"apiVersion": "v1", "kind": "LimitRange", "metadata": md}
	if g.chance(0.95) {
		obj["spec"] = map[string]any{"limits": limits}
	}
	return map[string]any{"object": obj}
}

func upstreamLimitRange(raw []byte) (map[string]any, error) {
	in, err := gatedValidateInput(raw)
	if err != nil {
		return nil, err
	}
	var v corev1.LimitRange
	if err := json.Unmarshal(in.Object, &v); err != nil {
		return nil, err
	}
	legacyscheme.Scheme.Default(&v)
	var l api.LimitRange
	if err := legacyscheme.Scheme.Convert(&v, &l, nil); err != nil {
		return nil, err
	}
	limitrangeregistry.Strategy.PrepareForCreate(ctxNS(), &l)
	return withMessages(limitrangeregistry.Strategy.Validate(ctxNS(), &l), nil), nil
}
