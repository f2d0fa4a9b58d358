package main

// The validate(ServiceAccount) leg: v1 ServiceAccounts whose metadata varies around what
// ValidateServiceAccount checks (names valid or not, namespaces valid or not, annotations valid or
// not) and around WarningsOnCreate: the kubernetes.io/enforce-mountable-secrets annotation
// present with any value, or absent beside other annotations; secrets (whose references
// PrepareForCreate cuts to their names), imagePullSecrets and automountServiceAccountToken. Through
// the create path: decoding, the v1 defaulting, conversion, PrepareForCreate, the release's create
// validation and, for an account that passed, WarningsOnCreate (from 1.32). Full messages are
// compared, and the warnings.

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/kubernetes/pkg/apis/core"
	serviceaccountregistry "k8s.io/kubernetes/pkg/registry/core/serviceaccount"
)

func (g gen) validateServiceAccount() map[string]any {
	meta := map[string]any{"name": g.mistake(0.15, []any{"builder", "default", "ci.runner", "a-b-c"}, []any{"", "Builder", "a_b", "-x", "a..b"})}
	// Always a namespace: one left out is the request's (kubectl's), which BeforeCreate fills in
	// before the strategy runs; this leg calls the strategy itself.
	meta["namespace"] = g.mistake(0.1, []any{"default", "ci"}, []any{"Bad_NS", "a.b"})
	if g.chance(0.6) {
		annotations := map[string]any{}
		if g.chance(0.6) {
			annotations["kubernetes.io/enforce-mountable-secrets"] = g.pick("true", "false", "")
		}
		if g.chance(0.4) {
			annotations[g.mistake(0.3, []any{"example.com/owner", "team"}, []any{"bad key/x/y", "-x", ""}).(string)] = "v"
		}
		meta["annotations"] = annotations
	}
	if g.chance(0.2) {
		meta["labels"] = map[string]any{g.mistake(0.3, []any{"app", "example.com/tier"}, []any{"bad key", "a/b/c"}).(string): g.mistake(0.2, []any{"ci", ""}, []any{"-x", "a b"})}
	}
	obj := map[string]any{"apiVersion": "v1", "kind": "ServiceAccount", "metadata": meta}
	if g.chance(0.4) {
		secrets := []any{}
		for i := g.r.IntN(3); i > 0; i-- {
			s := map[string]any{"name": g.pick("token", "", "Not_A_Name")}
			if g.chance(0.3) {
				s["namespace"] = "elsewhere"
				s["uid"] = "1234"
			}
			secrets = append(secrets, s)
		}
		obj["secrets"] = secrets
	}
	if g.chance(0.3) {
		obj["imagePullSecrets"] = []any{map[string]any{"name": g.pick("regcred", "", "Bad_Name")}}
	}
	if g.chance(0.3) {
		obj["automountServiceAccountToken"] = g.chance(0.5)
	}
	return map[string]any{"object": obj}
}

func upstreamServiceAccount(raw []byte) (map[string]any, error) {
	in, err := gatedValidateInput(raw)
	if err != nil {
		return nil, err
	}
	var sa core.ServiceAccount
	if err := decodeAndConvert(in.Object, &corev1.ServiceAccount{}, &sa); err != nil {
		return nil, err
	}
	return createExpect(createRequestCtx(sa.Namespace, "", "serviceaccounts"), serviceaccountregistry.Strategy, &sa), nil
}
