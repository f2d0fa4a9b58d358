package main

// The validate(PodDisruptionBudget) leg: policy/v1 PodDisruptionBudgets drawn mostly valid, with
// the mistakes people make (minAvailable and maxUnavailable both set, a negative count, a string
// that is no percent, a percent over 100, a bad selector, an unknown unhealthyPodEvictionPolicy,
// the v1beta1 conversion's selector label beside requirements of the user's), through the
// create path: decoding, the (empty) v1 defaulting, conversion, the strategy's PrepareForCreate
// and Validate, then, as rest.BeforeCreate does for a kind whose Validate checks no metadata and
// only when Validate found nothing, the generic ObjectMeta check (path-segment names, drawn
// sometimes with '/', '%', '.', '..', or upper case, which it allows). Full messages are
// compared.

import (
	"encoding/json"
	"strings"

	policyv1 "k8s.io/api/policy/v1"
	genericvalidation "k8s.io/apimachinery/pkg/api/validation"
	"k8s.io/apimachinery/pkg/api/validation/path"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/kubernetes/pkg/api/legacyscheme"
	"k8s.io/kubernetes/pkg/apis/policy"
	_ "k8s.io/kubernetes/pkg/apis/policy/install"
	pdbregistry "k8s.io/kubernetes/pkg/registry/policy/poddisruptionbudget"
)

const pdbV1beta1Label = "pdb.kubernetes.io/deprecated-v1beta1-empty-selector-match"

func (g gen) pdbIntOrPercent() any {
	return g.mistake(0.3, []any{0, 1, 2, 5, "0%", "25%", "50%", "100%", "1%"},
		[]any{-1, -5, "101%", "150%", "5", "abc", "", "-10%", "10 %", "%", "1.5%", "99999999999999999999%", "<b>%"})
}

func (g gen) pdbSelector() any {
	if g.chance(0.1) {
		// the v1beta1 conversion's label: the match-none selector, or mixed with the user's
		switch g.r.IntN(4) {
		case 0:
			return map[string]any{"matchExpressions": []any{map[string]any{"key": pdbV1beta1Label, "operator": "Exists"}}}
		case 1:
			return map[string]any{"matchExpressions": []any{map[string]any{"key": pdbV1beta1Label, "operator": "DoesNotExist"}}}
		default:
			exprs := []any{map[string]any{"key": pdbV1beta1Label, "operator": g.pick("Exists", "Bogus", "In").(string)},
				map[string]any{"key": g.pick("app", "bad key").(string), "operator": g.pick("In", "Exists", "Has").(string)}}
			if g.chance(0.5) {
				exprs[0], exprs[1] = exprs[1], exprs[0]
			}
			s := map[string]any{"matchExpressions": exprs}
			if g.chance(0.3) {
				s["matchLabels"] = map[string]any{"app": "w"}
			}
			return s
		}
	}
	return g.selectorValue()
}

func (g gen) validatePDB() map[string]any {
	spec := map[string]any{}
	switch g.r.IntN(10) {
	case 0:
		// neither
	case 1, 2:
		spec["minAvailable"], spec["maxUnavailable"] = g.pdbIntOrPercent(), g.pdbIntOrPercent()
	case 3, 4, 5:
		spec["maxUnavailable"] = g.pdbIntOrPercent()
	default:
		spec["minAvailable"] = g.pdbIntOrPercent()
	}
	if g.chance(0.9) {
		if s := g.pdbSelector(); s != nil {
			spec["selector"] = s
		}
	}
	if g.chance(0.3) {
		spec["unhealthyPodEvictionPolicy"] = g.mistake(0.3, []any{"IfHealthyBudget", "AlwaysAllow"}, []any{"", "Never", "alwaysAllow"})
	}
	md := map[string]any{"namespace": "default"}
	if g.chance(0.1) {
		md["generateName"] = g.pick("budget-", "a/b-", "..", "x%").(string)
	} else {
		md["name"] = g.mistake(0.15, []any{"budget", "web-pdb"}, []any{"Budget.V1", "a/b", "..", ".", "100%", "a_b"}).(string)
	}
	if g.chance(0.05) {
		md["labels"] = map[string]any{"app": g.pick("w", "-bad").(string)}
	}
	obj := map[string]any{"apiVersion": "policy/v1", "kind": "PodDisruptionBudget", "metadata": md, "spec": spec}
	if g.chance(0.05) {
		obj["status"] = map[string]any{"disruptionsAllowed": -1, "currentHealthy": 3}
	}
	return map[string]any{"object": obj}
}

func upstreamPDB(raw []byte) (map[string]any, error) {
	in, err := gatedValidateInput(raw)
	if err != nil {
		return nil, err
	}
	var v policyv1.PodDisruptionBudget
	if err := json.Unmarshal(in.Object, &v); err != nil {
		return nil, err
	}
	legacyscheme.Scheme.Default(&v)
	var p policy.PodDisruptionBudget
	if err := legacyscheme.Scheme.Convert(&v, &p, nil); err != nil {
		return nil, err
	}
	generated := ""
	if p.GenerateName != "" && p.Name == "" {
		generated = pdbregistry.Strategy.GenerateName(p.GenerateName)
		p.Name = generated
	}
	pdbregistry.Strategy.PrepareForCreate(ctxNS(), &p)
	errs := pdbregistry.Strategy.Validate(ctxNS(), &p)
	if len(errs) == 0 {
		errs = genericvalidation.ValidateObjectMetaAccessor(&p.ObjectMeta, true, path.ValidatePathSegmentName, field.NewPath("metadata"))
	}
	exp := errorsExpect(errs)
	msgs := []any{}
	for _, e := range errs {
		// A generated name's random characters are no fact about the object: its detail only.
		if v, ok := e.BadValue.(string); ok && generated != "" && strings.Contains(v, generated) {
			msgs = append(msgs, e.Detail)
		} else {
			msgs = append(msgs, maskAddresses(e.Error()))
		}
	}
	if len(msgs) > 0 {
		exp["errorMessages"] = msgs
	}
	return exp, nil
}
