package main

// The create path the kind legs share (netpol.go, ingress.go, storageclass.go): the v1
// defaulting and the conversion, then rest.BeforeCreate's PrepareForCreate, the release's create
// validation (createValidation, rbac_create_*.go) and, for an object that passed,
// WarningsOnCreate.

import (
	"context"
	"encoding/json"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apiserver/pkg/registry/rest"
	"k8s.io/kubernetes/pkg/api/legacyscheme"
)

// decodeAndConvert: the object decoded into v1obj as the API server's JSON decoder reads it,
// the v1 defaulting, then the conversion to the internal type.
func decodeAndConvert(object []byte, v1obj, internal runtime.Object) error {
	if err := json.Unmarshal(object, v1obj); err != nil {
		return err
	}
	legacyscheme.Scheme.Default(v1obj)
	return legacyscheme.Scheme.Convert(v1obj, internal, nil)
}

// createExpect: what upstream says of creating obj (internal, converted): its errors' messages
// and, when it passed, its warnings.
func createExpect(ctx context.Context, s rest.RESTCreateStrategy, obj runtime.Object) map[string]any {
	s.PrepareForCreate(ctx, obj)
	errs := createValidation(ctx, s, obj)
	exp := withMessages(errs, nil)
	if len(errs) == 0 {
		warnings := []any{}
		for _, w := range s.WarningsOnCreate(ctx, obj) {
			warnings = append(warnings, map[string]any{"message": w})
		}
		exp["warnings"] = warnings
	}
	return exp
}
