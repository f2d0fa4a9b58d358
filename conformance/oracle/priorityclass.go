package main

// The validate(PriorityClass) leg: scheduling.k8s.io/v1 PriorityClasses drawn around the edges
// of ValidatePriorityClass (values at and past HighestUserDefinablePriority and the int32
// bounds, the two system classes with right and wrong values and globalDefault, other names with
// the reserved `system-` prefix, preemptionPolicy absent, empty, valid or not), with a name
// sometimes not a DNS subdomain, through the create path: decoding, the v1 defaulting
// (preemptionPolicy), conversion, the strategy's PrepareForCreate and Validate. Full messages are
// compared.

import (
	"encoding/json"

	schedulingv1 "k8s.io/api/scheduling/v1"
	"k8s.io/kubernetes/pkg/api/legacyscheme"
	"k8s.io/kubernetes/pkg/apis/scheduling"
	priorityclassregistry "k8s.io/kubernetes/pkg/registry/scheduling/priorityclass"
)

func (g gen) validatePriorityClass() map[string]any {
	name := g.mistake(0.1, []any{"high-priority", "batch-low", "system-node-critical", "system-cluster-critical", "system-node-critical",
		"system-cluster-critical", "system-custom", "system-", "systemd"}, []any{"High", "system_x", "a..b"}).(string)
	obj := map[string]any{"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass", "metadata": map[string]any{"name": name}}
	if g.chance(0.95) {
		obj["value"] = g.pick(0, 1000, -1000, 1000000000, 1000000001, 2000000000, 2000001000, 2000001001, 1999999999,
			2147483647, -2147483648, 100)
	}
	if g.chance(0.3) {
		obj["globalDefault"] = g.chance(0.4)
	}
	if g.chance(0.3) {
		obj["description"] = g.pick("for batch jobs", "").(string)
	}
	if g.chance(0.35) {
		obj["preemptionPolicy"] = g.mistake(0.4, []any{"PreemptLowerPriority", "Never"}, []any{"", "Always", "never", "PreemptNever"})
	}
	return map[string]any{"object": obj}
}

func upstreamPriorityClass(raw []byte) (map[string]any, error) {
	in, err := gatedValidateInput(raw)
	if err != nil {
		return nil, err
	}
	var v schedulingv1.PriorityClass
	if err := json.Unmarshal(in.Object, &v); err != nil {
		return nil, err
	}
	legacyscheme.Scheme.Default(&v)
	var pc scheduling.PriorityClass
	if err := legacyscheme.Scheme.Convert(&v, &pc, nil); err != nil {
		return nil, err
	}
	ctx := ctxNSOf("")
	priorityclassregistry.Strategy.PrepareForCreate(ctx, &pc)
	return withMessages(priorityclassregistry.Strategy.Validate(ctx, &pc), nil), nil
}
