package main

// The validate(RuntimeClass) leg: node.k8s.io/v1 RuntimeClasses drawn around ValidateRuntimeClass:
// handlers valid (`runc`, `nvidia`, `kata-fc`), empty, uppercase, with `_` or `.`, 64 bytes;
// overhead.podFixed with ordinary, negative, fractional-extended or hugepage quantities, bad
// resource names; scheduling with nodeSelectors (bad keys and values, deprecated node labels)
// and tolerations (the Pod scheduling leg's mistakes, Lt/Gt, and repeats of the one before, with
// and without tolerationSeconds). DeclarativeValidationBeta is varied where settable. Through
// the create path (createExpect: decoding, conversion, the release's create validation and, for
// a class that passed, WarningsOnCreate); full messages and warnings compared.

import (
	"strings"

	nodev1 "k8s.io/api/node/v1"
	"k8s.io/kubernetes/pkg/apis/node"
	runtimeclassregistry "k8s.io/kubernetes/pkg/registry/node/runtimeclass"
)

func (g gen) runtimeClassToleration() map[string]any {
	t := map[string]any{}
	if g.chance(0.85) {
		t["key"] = g.mistake(0.15, []any{"nvidia.com/gpu", "sandbox", "node-role.kubernetes.io/gpu"}, []any{"bad key", "-x"})
	}
	if g.chance(0.8) {
		t["operator"] = g.mistake(0.15, []any{"Exists", "Equal"}, []any{"In", "Lt", "Gt", ""})
	}
	if t["operator"] != "Exists" || g.chance(0.1) {
		t["value"] = g.mistake(0.15, []any{"true", "present", "5"}, []any{"not a value", strings.Repeat("v", 64)})
	}
	if g.chance(0.6) {
		t["effect"] = g.mistake(0.1, []any{"NoSchedule", "NoExecute", "PreferNoSchedule"}, []any{"Never"})
	}
	if g.chance(0.15) {
		t["tolerationSeconds"] = g.pick(30, 0, -1)
	}
	return t
}

func (g gen) validateRuntimeClass() map[string]any {
	obj := map[string]any{"apiVersion": "node.k8s.io/v1", "kind": "RuntimeClass",
		"metadata": map[string]any{"name": g.mistake(0.05, []any{"nvidia", "kata-fc", "gvisor.example.com"}, []any{"Bad_Name"})}}
	if g.chance(0.95) {
		obj["handler"] = g.mistake(0.25, []any{"runc", "nvidia", "kata-fc", "runsc"}, []any{"", "Kata", "kata_fc", "kata.fc", strings.Repeat("h", 64), "-x"})
	}
	if g.chance(0.4) {
		fixed := map[string]any{}
		for i := 1 + g.r.IntN(2); i > 0; i-- {
			name := g.mistake(0.2, []any{"cpu", "memory", "ephemeral-storage", "example.com/foo"}, []any{"hugepages-2Mi", "bad name", "example.com/a/b", "foo"}).(string)
			fixed[name] = g.mistake(0.2, []any{"250m", "120Mi", "1", "2Gi"}, []any{"-1", "-250m", "0.5", "1.5"})
		}
		obj["overhead"] = map[string]any{"podFixed": fixed}
	}
	if g.chance(0.5) {
		s := map[string]any{}
		if g.chance(0.6) {
			s["nodeSelector"] = map[string]any{
				g.mistake(0.2, []any{"kubernetes.io/arch", "node.example.com/runtime", "beta.kubernetes.io/os", "failure-domain.beta.kubernetes.io/zone"}, []any{"bad key", "a/b/c"}).(string): g.mistake(0.15, []any{"amd64", "kata", ""}, []any{"not a value", "-x"}),
			}
		}
		if g.chance(0.6) {
			tols := []any{}
			for i := g.r.IntN(4); i > 0; i-- {
				if len(tols) > 0 && g.chance(0.3) {
					prev := map[string]any{}
					for k, v := range tols[len(tols)-1].(map[string]any) {
						prev[k] = v
					}
					if g.chance(0.3) {
						prev["tolerationSeconds"] = 60
						prev["effect"] = "NoExecute"
					}
					tols = append(tols, prev)
					continue
				}
				tols = append(tols, g.runtimeClassToleration())
			}
			s["tolerations"] = tols
		}
		obj["scheduling"] = s
	}
	return map[string]any{"object": obj, "featureGates": gatesOf(g.drawGates("DeclarativeValidationBeta"))}
}

func upstreamRuntimeClass(raw []byte) (map[string]any, error) {
	in, err := gatedValidateInput(raw)
	if err != nil {
		return nil, err
	}
	var rc node.RuntimeClass
	if err := decodeAndConvert(in.Object, &nodev1.RuntimeClass{}, &rc); err != nil {
		return nil, err
	}
	return createExpect(createRequestCtx("", "node.k8s.io", "runtimeclasses"), runtimeclassregistry.Strategy, &rc), nil
}
