//go:build !k8s_before_1_37

package main

import (
	"context"

	"k8s.io/apimachinery/pkg/api/operation"
	"k8s.io/apimachinery/pkg/api/validation"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/apiserver/pkg/features"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
)

// customResourceMetaErrors: the customresource validator's metadata check on create from 1.37
// (ValidateObjectMetaDeclaratively, with the declarative rules the DeclarativeValidationBeta
// gate enforces).
func customResourceMetaErrors(m *metav1.ObjectMeta, namespaced bool) field.ErrorList {
	return validation.ValidateObjectMetaDeclaratively(context.Background(), operation.Create, m, nil, namespaced,
		validation.NameIsDNSSubdomain, field.NewPath("metadata"), utilfeature.DefaultFeatureGate.Enabled(features.DeclarativeValidationBeta))
}
