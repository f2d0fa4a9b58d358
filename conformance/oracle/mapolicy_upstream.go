//go:build !k8s_before_1_32

package main

import (
	"encoding/json"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/kubernetes/pkg/api/legacyscheme"
	"k8s.io/kubernetes/pkg/apis/admissionregistration"
	mapregistry "k8s.io/kubernetes/pkg/registry/admissionregistration/mutatingadmissionpolicy"
	mapbindingregistry "k8s.io/kubernetes/pkg/registry/admissionregistration/mutatingadmissionpolicybinding"
)

// upstreamMutatingAdmissionPolicy: the object decoded at its own version (the scheme makes the
// versioned type), defaulted, converted to the one internal type, then created.
func upstreamMutatingAdmissionPolicy(raw []byte) (map[string]any, error) {
	in, err := gatedValidateInput(raw)
	if err != nil {
		return nil, err
	}
	var tm struct{ APIVersion, Kind string }
	if err := json.Unmarshal(in.Object, &tm); err != nil {
		return nil, err
	}
	if tm.Kind != "MutatingAdmissionPolicy" && tm.Kind != "MutatingAdmissionPolicyBinding" {
		return upstreamAdmissionPolicy(raw)
	}
	gv, err := schema.ParseGroupVersion(tm.APIVersion)
	if err != nil {
		return nil, err
	}
	versioned, err := legacyscheme.Scheme.New(gv.WithKind(tm.Kind))
	if err != nil {
		return nil, err
	}
	ctx := createRequestCtx("", "admissionregistration.k8s.io", "mutatingadmissionpolicies")
	if tm.Kind == "MutatingAdmissionPolicyBinding" {
		var b admissionregistration.MutatingAdmissionPolicyBinding
		if err := decodeAndConvert(in.Object, versioned, &b); err != nil {
			return nil, err
		}
		ctx = createRequestCtx("", "admissionregistration.k8s.io", "mutatingadmissionpolicybindings")
		return createExpect(ctx, mapbindingregistry.NewStrategy(nil, nil, noResolver{}), &b), nil
	}
	var p admissionregistration.MutatingAdmissionPolicy
	if err := decodeAndConvert(in.Object, versioned, &p); err != nil {
		return nil, err
	}
	return createExpect(ctx, mapregistry.NewStrategy(nil, nil), &p), nil
}
