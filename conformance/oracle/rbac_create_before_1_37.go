//go:build k8s_before_1_37

package main

import (
	"context"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/apiserver/pkg/registry/rest"
)

// createValidation: the create validation up to 1.36, the strategy's Validate (in 1.35 and
// 1.36 it runs the RBAC declarative rules itself; they are alpha there and change no error).
func createValidation(ctx context.Context, s rest.RESTCreateStrategy, obj runtime.Object) field.ErrorList {
	return s.Validate(ctx, obj)
}
