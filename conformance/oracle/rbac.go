package main

// The validate(RBAC) leg: rbac.authorization.k8s.io/v1 Roles, ClusterRoles, RoleBindings and
// ClusterRoleBindings drawn around pkg/apis/rbac/validation (policy rules without verbs, api
// groups or resources, non-resource URLs in a Role or beside resources, aggregation rules with
// no selector or a selector LabelSelectorAsSelector refuses, role references of another group
// or kind or a name that is no path segment, subjects of every kind with a bad name, group or
// namespace, and the fields the v1 defaulting fills in left empty), with
// DeclarativeValidationBeta varied where the release lets it be set, through the create path:
// decoding, the v1 defaulting, conversion, PrepareForCreate, and the create validation of the
// release (the strategy's Validate; from 1.37 rest.ValidateCreate, which adds declarative
// validation: rbac_create_*.go). Full messages are compared.

import (
	"context"
	"encoding/json"
	"fmt"

	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/runtime"
	genericapirequest "k8s.io/apiserver/pkg/endpoints/request"
	"k8s.io/apiserver/pkg/registry/rest"
	"k8s.io/kubernetes/pkg/api/legacyscheme"
	"k8s.io/kubernetes/pkg/apis/rbac"
	clusterroleregistry "k8s.io/kubernetes/pkg/registry/rbac/clusterrole"
	clusterrolebindingregistry "k8s.io/kubernetes/pkg/registry/rbac/clusterrolebinding"
	roleregistry "k8s.io/kubernetes/pkg/registry/rbac/role"
	rolebindingregistry "k8s.io/kubernetes/pkg/registry/rbac/rolebinding"
)

func (g gen) rbacStrings(p float64, valid []any) []any {
	if g.chance(p) {
		return []any{}
	}
	n := 1 + g.r.IntN(2)
	out := []any{}
	for i := 0; i < n; i++ {
		out = append(out, valid[g.r.IntN(len(valid))])
	}
	return out
}

func (g gen) policyRule() map[string]any {
	r := map[string]any{}
	if g.chance(0.9) {
		r["verbs"] = g.rbacStrings(0.15, []any{"get", "list", "watch", "*", "create", ""})
	}
	if g.chance(0.25) {
		r["nonResourceURLs"] = g.rbacStrings(0.2, []any{"/healthz", "/metrics", "/api/*", "*"})
		if g.chance(0.6) {
			return r
		}
	}
	if g.chance(0.9) {
		r["apiGroups"] = g.rbacStrings(0.12, []any{"", "apps", "batch", "*", "jobset.x-k8s.io"})
	}
	if g.chance(0.9) {
		r["resources"] = g.rbacStrings(0.12, []any{"pods", "pods/log", "jobs", "*", "deployments/scale"})
	}
	if g.chance(0.2) {
		r["resourceNames"] = g.rbacStrings(0.3, []any{"my-config", "lock"})
	}
	return r
}

func (g gen) clusterRoleSelector() any {
	return g.mistake(0.4, []any{
		map[string]any{"matchLabels": map[string]any{"rbac.example.com/aggregate-to-view": "true"}},
		map[string]any{"matchExpressions": []any{map[string]any{"key": "tier", "operator": "In", "values": []any{"a", "b"}}}},
		map[string]any{"matchExpressions": []any{map[string]any{"key": "tier", "operator": "Exists"}}},
		map[string]any{},
		nil,
	}, []any{
		map[string]any{"matchLabels": map[string]any{"bad key!": "true"}},
		map[string]any{"matchLabels": map[string]any{"a": "not valid!"}},
		map[string]any{"matchExpressions": []any{map[string]any{"key": "tier", "operator": "Within", "values": []any{"a"}}}},
		map[string]any{"matchExpressions": []any{map[string]any{"key": "tier", "operator": "In"}}},
		map[string]any{"matchExpressions": []any{map[string]any{"key": "tier", "operator": "Exists", "values": []any{"a"}}}},
		map[string]any{"matchExpressions": []any{map[string]any{"key": "", "operator": "DoesNotExist"}}},
	})
}

func (g gen) rbacSubject() map[string]any {
	s := map[string]any{}
	kind := g.mistake(0.1, []any{"ServiceAccount", "User", "Group"}, []any{"", "Robot", "serviceaccount"}).(string)
	if kind != "" || g.chance(0.5) {
		s["kind"] = kind
	}
	names := map[string][]any{
		"ServiceAccount": {"default", "job-runner", "a.b"},
		"User":           {"jane@example.com", "system:admin", "Jane Doe"},
		"Group":          {"system:authenticated", "devs", "team/a"},
	}
	valid, ok := names[kind]
	if !ok {
		valid = []any{"x"}
	}
	if name := g.mistake(0.2, valid, []any{"", "Bad_Name", "-sa", "a/b"}).(string); name != "" || g.chance(0.5) {
		s["name"] = name
	}
	if g.chance(0.3) {
		s["apiGroup"] = g.pick("", "rbac.authorization.k8s.io", "v1", "example.com").(string)
	}
	if kind == "ServiceAccount" && g.chance(0.7) || g.chance(0.1) {
		s["namespace"] = g.pick("default", "ml", "").(string)
	}
	return s
}

func (g gen) validateRBAC() map[string]any {
	kind := g.pick("Role", "ClusterRole", "RoleBinding", "ClusterRoleBinding").(string)
	meta := map[string]any{"name": g.pick("reader", "system:controller:job-controller", "edit").(string)}
	if kind == "Role" || kind == "RoleBinding" {
		meta["namespace"] = "default"
	}
	obj := map[string]any{"apiVersion": "rbac.authorization.k8s.io/v1", "kind": kind, "metadata": meta}
	switch kind {
	case "Role", "ClusterRole":
		if g.chance(0.9) {
			rules := []any{}
			for i := g.r.IntN(4); i > 0; i-- {
				rules = append(rules, g.policyRule())
			}
			obj["rules"] = rules
		}
		if kind == "ClusterRole" && g.chance(0.35) {
			agg := map[string]any{}
			if g.chance(0.85) {
				sels := []any{}
				for i := g.r.IntN(3); i > 0; i-- {
					sels = append(sels, g.clusterRoleSelector())
				}
				agg["clusterRoleSelectors"] = sels
			}
			obj["aggregationRule"] = agg
		}
	default:
		ref := map[string]any{}
		if g.chance(0.7) {
			ref["apiGroup"] = g.mistake(0.25, []any{"rbac.authorization.k8s.io", ""}, []any{"rbac", "rbac.authorization.k8s.io/v1", "example.com"}).(string)
		}
		if g.chance(0.95) {
			ref["kind"] = g.mistake(0.2, []any{"ClusterRole", "Role"}, []any{"", "clusterrole", "Group"}).(string)
		}
		if g.chance(0.95) {
			ref["name"] = g.mistake(0.25, []any{"view", "edit", "system:aggregate-to-view", "my role"}, []any{"", ".", "..", "a/b", "50%"}).(string)
		}
		obj["roleRef"] = ref
		if g.chance(0.9) {
			subjects := []any{}
			for i := g.r.IntN(4); i > 0; i-- {
				subjects = append(subjects, g.rbacSubject())
			}
			obj["subjects"] = subjects
		}
	}
	return map[string]any{"object": obj, "featureGates": gatesOf(g.drawGates("DeclarativeValidationBeta"))}
}

// rbacKinds: each kind's v1 and internal types, strategy and resource.
var rbacKinds = map[string]struct {
	external, internal func() runtime.Object
	strategy           rest.RESTCreateStrategy
	resource           string
}{
	"Role": {func() runtime.Object { return &rbacv1.Role{} }, func() runtime.Object { return &rbac.Role{} },
		roleregistry.Strategy, "roles"},
	"ClusterRole": {func() runtime.Object { return &rbacv1.ClusterRole{} }, func() runtime.Object { return &rbac.ClusterRole{} },
		clusterroleregistry.Strategy, "clusterroles"},
	"RoleBinding": {func() runtime.Object { return &rbacv1.RoleBinding{} }, func() runtime.Object { return &rbac.RoleBinding{} },
		rolebindingregistry.Strategy, "rolebindings"},
	"ClusterRoleBinding": {func() runtime.Object { return &rbacv1.ClusterRoleBinding{} }, func() runtime.Object { return &rbac.ClusterRoleBinding{} },
		clusterrolebindingregistry.Strategy, "clusterrolebindings"},
}

func upstreamRBAC(raw []byte) (map[string]any, error) {
	in, err := gatedValidateInput(raw)
	if err != nil {
		return nil, err
	}
	var head struct {
		Kind string `json:"kind"`
	}
	if err := json.Unmarshal(in.Object, &head); err != nil {
		return nil, err
	}
	k, ok := rbacKinds[head.Kind]
	if !ok {
		return nil, fmt.Errorf("not an RBAC kind: %q", head.Kind)
	}
	v := k.external()
	if err := json.Unmarshal(in.Object, v); err != nil {
		return nil, err
	}
	legacyscheme.Scheme.Default(v)
	obj := k.internal()
	if err := legacyscheme.Scheme.Convert(v, obj, nil); err != nil {
		return nil, err
	}
	ns := ""
	if k.strategy.NamespaceScoped() {
		ns = "default"
	}
	ctx := createRequestCtx(ns, "rbac.authorization.k8s.io", k.resource)
	k.strategy.PrepareForCreate(ctx, obj)
	return withMessages(createValidation(ctx, k.strategy, obj), nil), nil
}

// createRequestCtx: a create request in namespace ns ("" for a cluster-scoped kind) for a v1
// resource of group: declarative validation reads the group and version from it.
func createRequestCtx(ns, group, resource string) context.Context {
	return genericapirequest.WithRequestInfo(ctxNSOf(ns), &genericapirequest.RequestInfo{IsResourceRequest: true,
		Verb: "create", APIGroup: group, APIVersion: "v1", Resource: resource})
}
