//go:build !k8s_before_1_37

package main

import (
	"context"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/apiserver/pkg/registry/rest"
)

// createValidation: the create validation from 1.37, rest.ValidateCreate: the strategy's
// Validate, then its declarative validation (which reads the group and version of the request
// in ctx).
func createValidation(ctx context.Context, s rest.RESTCreateStrategy, obj runtime.Object) field.ErrorList {
	return rest.ValidateCreate(ctx, obj, s)
}
