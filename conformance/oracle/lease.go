package main

// The validate(Lease) leg: coordination.k8s.io/v1 Leases drawn around ValidateLeaseSpec (a
// leaseDurationSeconds of 0 or less, negative leaseTransitions, a strategy that is neither the
// one Kubernetes defines nor a qualified name with a '/', a preferredHolder without a strategy),
// with CoordinatedLeaderElection varied where the release lets it be set (off, PrepareForCreate
// drops strategy and preferredHolder), through the create path: decoding, conversion, the
// strategy's PrepareForCreate and Validate. Full messages are compared.

import (
	"encoding/json"

	coordinationv1 "k8s.io/api/coordination/v1"
	"k8s.io/kubernetes/pkg/api/legacyscheme"
	"k8s.io/kubernetes/pkg/apis/coordination"
	leaseregistry "k8s.io/kubernetes/pkg/registry/coordination/lease"
)

func (g gen) validateLease() map[string]any {
	spec := map[string]any{}
	if g.chance(0.7) {
		spec["holderIdentity"] = g.pick("node-a", "", "kube-controller-manager_1234").(string)
	}
	if g.chance(0.6) {
		spec["leaseDurationSeconds"] = g.mistake(0.3, []any{1, 15, 40, 2147483647}, []any{0, -1, -2147483648})
	}
	if g.chance(0.4) {
		spec["leaseTransitions"] = g.mistake(0.3, []any{0, 3, 2147483647}, []any{-1, -100})
	}
	if g.chance(0.3) {
		spec["renewTime"] = "2026-01-02T03:04:05.000000Z"
	}
	if g.chance(0.4) {
		spec["strategy"] = g.mistake(0.5, []any{"OldestEmulationVersion", "example.com/custom", "x/y"},
			[]any{"", "Oldest", "oldestemulationversion", "a/b/c", "/x", "example.com/", "Bad_Prefix/x", "-x/y", "example.com/-x"})
	}
	if g.chance(0.3) {
		spec["preferredHolder"] = g.pick("node-b", "").(string)
	}
	obj := map[string]any{"apiVersion": "coordination.k8s.io/v1", "kind": "Lease",
		"metadata": map[string]any{"name": g.pick("lock", "kube-scheduler", "node-a.example").(string), "namespace": "default"}}
	if g.chance(0.95) {
		obj["spec"] = spec
	}
	gates := map[string]bool{}
	if set, on := g.chance(0.6), g.chance(0.5); set && settableGate("CoordinatedLeaderElection") {
		gates["CoordinatedLeaderElection"] = on
	}
	return map[string]any{"object": obj, "featureGates": gatesOf(gates)}
}

func upstreamLease(raw []byte) (map[string]any, error) {
	in, err := gatedValidateInput(raw)
	if err != nil {
		return nil, err
	}
	var v coordinationv1.Lease
	if err := json.Unmarshal(in.Object, &v); err != nil {
		return nil, err
	}
	legacyscheme.Scheme.Default(&v)
	var l coordination.Lease
	if err := legacyscheme.Scheme.Convert(&v, &l, nil); err != nil {
		return nil, err
	}
	leaseregistry.Strategy.PrepareForCreate(ctxNS(), &l)
	return withMessages(leaseregistry.Strategy.Validate(ctxNS(), &l), nil), nil
}
