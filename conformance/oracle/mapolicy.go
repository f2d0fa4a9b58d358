package main

// The validate(MutatingAdmissionPolicy) leg: admissionregistration.k8s.io MutatingAdmissionPolicies
// and their bindings (v1alpha1 from 1.32, v1beta1 from 1.34, v1 from 1.36, each case at a version
// the linked release serves), drawn around ValidateMutatingAdmissionPolicy and
// ValidateMutatingAdmissionPolicyBinding: what the ValidatingAdmissionPolicy leg draws of
// failurePolicy, paramKind, matchConstraints (with operations a mutating policy refuses:
// DELETE, `create`), matchConditions and variables, then mutations (patchType absent, both
// types, `Merge`; the patch the type names absent, blank or beside the other) and
// reinvocationPolicy (absent, `Never`, `IfNeeded`, `Always`); bindings' policyName, paramRef
// and matchResources. Every expression drawn compiles (restartkit does not model cel-go's
// compile errors). At 1.31, which has no such kind, the leg has nothing to draw and runs the
// ValidatingAdmissionPolicy leg's cases instead. Through the create path (createExpect), without
// an authorizer, full messages and warnings compared.

import (
	"strconv"
	"strings"
)

// mutatingPolicyVersion: a version of the kind the linked release serves ("" for none).
func (g gen) mutatingPolicyVersion() string {
	minor, _ := strconv.Atoi(strings.TrimPrefix(minorVersion(k8sModule()), "1."))
	versions := []string{}
	if minor >= 32 {
		versions = append(versions, "v1alpha1")
	}
	if minor >= 34 {
		versions = append(versions, "v1beta1")
	}
	if minor >= 36 {
		versions = append(versions, "v1", "v1")
	}
	if len(versions) == 0 {
		return ""
	}
	return versions[g.r.IntN(len(versions))]
}

func (g gen) mutatingAdmissionPolicy(version string) map[string]any {
	base := g.validatingAdmissionPolicy()
	spec := base["spec"].(map[string]any)
	delete(spec, "validations")
	delete(spec, "auditAnnotations")
	if mc, ok := spec["matchConstraints"].(map[string]any); ok && g.chance(0.2) {
		if rules, ok := mc["resourceRules"].([]any); ok && len(rules) > 0 {
			rules[0].(map[string]any)["operations"] = g.pick([]any{"CREATE", "DELETE"}, []any{"create"}, []any{"*"}, []any{"CONNECT", "UPDATE"})
		}
	}
	if g.chance(0.9) {
		muts := []any{}
		for i := g.r.IntN(3); i > 0; i-- {
			m := map[string]any{}
			kind := g.mistake(0.2, []any{"ApplyConfiguration", "JSONPatch"}, []any{"", "Merge"}).(string)
			if kind != "" {
				m["patchType"] = kind
			}
			apply := map[string]any{"expression": g.mistake(0.2, []any{"Object{metadata: Object.metadata{labels: {\"x\": \"y\"}}}"}, []any{"", " "})}
			patch := map[string]any{"expression": g.mistake(0.2, []any{"[JSONPatch{op: \"add\", path: \"/metadata/labels/x\", value: \"y\"}]"}, []any{"", "\t"})}
			switch {
			case kind == "JSONPatch" && g.chance(0.85), kind != "JSONPatch" && kind != "ApplyConfiguration" && g.chance(0.3):
				m["jsonPatch"] = patch
			case kind == "ApplyConfiguration" && g.chance(0.85), kind != "JSONPatch" && kind != "ApplyConfiguration" && g.chance(0.3):
				m["applyConfiguration"] = apply
			}
			if g.chance(0.1) {
				m["jsonPatch"], m["applyConfiguration"] = patch, apply
			}
			muts = append(muts, m)
		}
		spec["mutations"] = muts
	}
	if g.chance(0.85) {
		spec["reinvocationPolicy"] = g.mistake(0.2, []any{"Never", "IfNeeded"}, []any{"", "Always"})
	}
	base["apiVersion"] = "admissionregistration.k8s.io/" + version
	base["kind"] = "MutatingAdmissionPolicy"
	return base
}

func (g gen) mutatingAdmissionPolicyBinding(version string) map[string]any {
	base := g.validatingAdmissionPolicyBinding()
	spec := base["spec"].(map[string]any)
	delete(spec, "validationActions")
	if mr, ok := spec["matchResources"].(map[string]any); ok && g.chance(0.3) {
		if rules, ok := mr["resourceRules"].([]any); ok && len(rules) > 0 {
			rules[0].(map[string]any)["operations"] = g.pick([]any{"DELETE"}, []any{"CREATE", "UPDATE"})
		}
	}
	base["apiVersion"] = "admissionregistration.k8s.io/" + version
	base["kind"] = "MutatingAdmissionPolicyBinding"
	return base
}

func (g gen) validateMutatingAdmissionPolicy() map[string]any {
	version := g.mutatingPolicyVersion()
	if version == "" {
		return g.validateAdmissionPolicy()
	}
	var obj map[string]any
	if g.chance(0.6) {
		obj = g.mutatingAdmissionPolicy(version)
	} else {
		obj = g.mutatingAdmissionPolicyBinding(version)
	}
	return map[string]any{"object": obj, "featureGates": gatesOf(g.drawGates("ManifestBasedAdmissionControlConfig"))}
}
