package main

// The validate(ValidatingAdmissionPolicy) leg: admissionregistration.k8s.io/v1
// ValidatingAdmissionPolicies and their bindings drawn around ValidateValidatingAdmissionPolicy
// and ValidateValidatingAdmissionPolicyBinding. Policies: failurePolicy (absent: the default),
// paramKind apiVersions and kinds right and wrong, matchConstraints absent, without rules or
// with the webhook leg's rules, resourceNames (path segments, repeats), excluded rules, match
// policies and both selectors; the webhook leg's match conditions; variables (names CEL takes,
// reserved words, empty); validations (empty expressions, messages blank or with a line break,
// blank messageExpressions, reasons); audit annotations (keys that with the policy's name are
// not qualified names, repeats, empty or 5 KiB value expressions, more than 20). Bindings:
// policyName, paramRef (name, selector, both, neither; parameterNotFoundAction), matchResources
// and validationActions (repeats, Log, Deny with Warn, none). Every expression drawn compiles:
// restartkit does not model cel-go's compile errors. Names sometimes end with the reserved
// .static.k8s.io; ManifestBasedAdmissionControlConfig and DeclarativeValidationBeta are varied
// where the release lets them be set. Through the create path (createExpect): decoding, the v1
// defaulting, conversion, PrepareForCreate, the release's create validation (no authorizer: the
// paramKind and paramRef authorization is the cluster's) and, for an object that passed,
// WarningsOnCreate. Full messages are compared, and the warnings.

import (
	"encoding/json"
	"fmt"
	"strings"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/kubernetes/pkg/apis/admissionregistration"
	vapregistry "k8s.io/kubernetes/pkg/registry/admissionregistration/validatingadmissionpolicy"
	vapbindingregistry "k8s.io/kubernetes/pkg/registry/admissionregistration/validatingadmissionpolicybinding"
)

func (g gen) policyMatchResources(needRules bool) map[string]any {
	m := map[string]any{}
	if g.chance(0.3) {
		m["matchPolicy"] = g.mistake(0.3, []any{"Exact", "Equivalent"}, []any{"", "Fuzzy"})
	}
	for _, k := range []string{"namespaceSelector", "objectSelector"} {
		if g.chance(0.3) {
			if sel := g.webhookSelector(); sel != nil {
				m[k] = sel
			}
		}
	}
	n := g.r.IntN(3)
	if needRules && g.chance(0.9) && n == 0 {
		n = 1
	}
	for _, key := range []string{"resourceRules", "excludeResourceRules"} {
		rules := []any{}
		for i := 0; i < n; i++ {
			r := g.webhookRule()
			if g.chance(0.7) {
				// Mostly rules the validation takes, so the other checks show.
				r = map[string]any{"apiGroups": []any{"apps"}, "apiVersions": []any{"v1"},
					"operations": []any{"CREATE", "UPDATE"}, "resources": []any{"deployments"}}
			}
			if g.chance(0.25) {
				r["resourceNames"] = g.pick([]any{"web"}, []any{"web", "web"}, []any{"a/b"}, []any{".."}, []any{"%x", "."})
			}
			rules = append(rules, r)
		}
		if len(rules) > 0 || (key == "resourceRules" && g.chance(0.2)) {
			m[key] = rules
		}
		n = g.r.IntN(2)
	}
	return m
}

// policyExpressions compile in every release's validation environment (no params, no variables).
var policyExpressions = []any{"object.spec.replicas <= 5", "has(object.metadata.labels)", "true",
	"object.metadata.name.startsWith('prod-')", "request.operation == 'CREATE'"}

func (g gen) validatingAdmissionPolicy() map[string]any {
	name := g.mistake(0.1, []any{"replica-limit", "demo-policy.example.com"}, []any{"local.static.k8s.io", "Bad_Name", ""})
	spec := map[string]any{}
	if g.chance(0.3) {
		spec["failurePolicy"] = g.mistake(0.3, []any{"Fail", "Ignore"}, []any{"", "Sometimes"})
	}
	if g.chance(0.25) {
		spec["paramKind"] = map[string]any{
			"apiVersion": g.mistake(0.4, []any{"v1", "rules.example.com/v1", "rules.example.com/v1alpha1"},
				[]any{"", "a/b/c", "Bad_Group/v1", "example.com/V1", "/", "example.com/", "1v"}),
			"kind": g.mistake(0.3, []any{"ConfigMap", "ReplicaLimit"}, []any{"", "Replica_Limit", "1Kind"}),
		}
	}
	if g.chance(0.95) {
		spec["matchConstraints"] = g.policyMatchResources(true)
	}
	if g.chance(0.2) {
		spec["matchConditions"] = g.webhookMatchConditions()
	}
	if g.chance(0.3) {
		vars := []any{}
		for i := 1 + g.r.IntN(2); i > 0; i-- {
			vars = append(vars, map[string]any{
				"name":       g.mistake(0.4, []any{"replicas", "_x", "isProd"}, []any{"", " ", "in", "1x", "a-b", "while"}),
				"expression": g.mistake(0.2, []any{"object.spec.replicas", "'x'"}, []any{"", "  "}),
			})
		}
		spec["variables"] = vars
	}
	if g.chance(0.85) {
		vals := []any{}
		for i := g.r.IntN(3); i > 0; i-- {
			v := map[string]any{"expression": g.mistake(0.15, policyExpressions, []any{"", " \t"})}
			if g.chance(0.4) {
				v["message"] = g.mistake(0.3, []any{"too many replicas", ""}, []any{" ", "line one\nline two", "a\r"})
			}
			if g.chance(0.2) {
				v["messageExpression"] = g.mistake(0.4, []any{"'replicas of ' + object.metadata.name"}, []any{" ", "\n"})
			}
			if g.chance(0.2) {
				v["reason"] = g.mistake(0.3, []any{"Forbidden", "Invalid", "RequestEntityTooLarge"}, []any{"", "Teapot", "forbidden"})
			}
			vals = append(vals, v)
		}
		spec["validations"] = vals
	}
	if g.chance(0.3) {
		audits := []any{}
		n := g.r.IntN(3)
		if g.chance(0.05) {
			n = 21
		}
		for i := 0; i < n; i++ {
			a := map[string]any{
				"key":             g.mistake(0.3, []any{"high-replicas", fmt.Sprintf("k%d", i)}, []any{"", "bad key", "-x", strings.Repeat("k", 60)}),
				"valueExpression": g.mistake(0.2, []any{"'high'", "string(object.spec.replicas)"}, []any{"", " ", "'" + strings.Repeat("v", 5200) + "'"}),
			}
			if len(audits) > 0 && g.chance(0.2) {
				a["key"] = audits[len(audits)-1].(map[string]any)["key"]
			}
			audits = append(audits, a)
		}
		spec["auditAnnotations"] = audits
	}
	return map[string]any{"apiVersion": "admissionregistration.k8s.io/v1", "kind": "ValidatingAdmissionPolicy",
		"metadata": map[string]any{"name": name}, "spec": spec}
}

func (g gen) validatingAdmissionPolicyBinding() map[string]any {
	name := g.mistake(0.1, []any{"replica-limit-binding", "demo.example.com"}, []any{"local.static.k8s.io", "Bad_Name"})
	spec := map[string]any{}
	if g.chance(0.9) {
		spec["policyName"] = g.mistake(0.15, []any{"replica-limit", "demo-policy.example.com"}, []any{"", "Bad_Name", "a..b"})
	}
	if g.chance(0.3) {
		pr := map[string]any{}
		if g.chance(0.6) {
			pr["name"] = g.mistake(0.3, []any{"replica-limit-test.example.com", "limits"}, []any{"a/b", "..", "x%y"})
		}
		if g.chance(0.4) {
			pr["selector"] = g.pick(map[string]any{}, map[string]any{"matchLabels": map[string]any{"env": "test"}},
				map[string]any{"matchLabels": map[string]any{"bad key": "x"}})
		}
		if g.chance(0.85) {
			pr["parameterNotFoundAction"] = g.mistake(0.3, []any{"Deny", "Allow"}, []any{"", "Ignore", "deny"})
		}
		spec["paramRef"] = pr
	}
	if g.chance(0.4) {
		spec["matchResources"] = g.policyMatchResources(false)
	}
	if g.chance(0.9) {
		spec["validationActions"] = g.pick([]any{"Deny"}, []any{"Warn", "Audit"}, []any{"Deny", "Audit"}, []any{},
			[]any{"Deny", "Warn"}, []any{"Deny", "Deny"}, []any{"Log"}, []any{"deny", "Audit"}, []any{"Audit", "Warn", "Audit"})
	}
	return map[string]any{"apiVersion": "admissionregistration.k8s.io/v1", "kind": "ValidatingAdmissionPolicyBinding",
		"metadata": map[string]any{"name": name}, "spec": spec}
}

func (g gen) validateAdmissionPolicy() map[string]any {
	var obj map[string]any
	if g.chance(0.55) {
		obj = g.validatingAdmissionPolicy()
	} else {
		obj = g.validatingAdmissionPolicyBinding()
	}
	return map[string]any{"object": obj, "featureGates": gatesOf(g.drawGates("ManifestBasedAdmissionControlConfig", "DeclarativeValidationBeta"))}
}

// noResolver: the binding strategy refuses to run its (authorizer-less) authorization without a
// resource resolver from 1.32; no authorizer, so it is never asked.
type noResolver struct{}

func (noResolver) Resolve(schema.GroupVersionKind) (schema.GroupVersionResource, error) {
	return schema.GroupVersionResource{}, fmt.Errorf("not resolved")
}

func upstreamAdmissionPolicy(raw []byte) (map[string]any, error) {
	in, err := gatedValidateInput(raw)
	if err != nil {
		return nil, err
	}
	var kind struct{ Kind string }
	if err := json.Unmarshal(in.Object, &kind); err != nil {
		return nil, err
	}
	if kind.Kind == "ValidatingAdmissionPolicyBinding" {
		var b admissionregistration.ValidatingAdmissionPolicyBinding
		if err := decodeAndConvert(in.Object, &admissionregistrationv1.ValidatingAdmissionPolicyBinding{}, &b); err != nil {
			return nil, err
		}
		return createExpect(createRequestCtx("", "admissionregistration.k8s.io", "validatingadmissionpolicybindings"), vapbindingregistry.NewStrategy(nil, nil, noResolver{}), &b), nil
	}
	var p admissionregistration.ValidatingAdmissionPolicy
	if err := decodeAndConvert(in.Object, &admissionregistrationv1.ValidatingAdmissionPolicy{}, &p); err != nil {
		return nil, err
	}
	return createExpect(createRequestCtx("", "admissionregistration.k8s.io", "validatingadmissionpolicies"), vapregistry.NewStrategy(nil, nil), &p), nil
}
