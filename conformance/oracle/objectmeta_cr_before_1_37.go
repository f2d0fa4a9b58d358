//go:build k8s_before_1_37

package main

import (
	"k8s.io/apimachinery/pkg/api/validation"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// customResourceMetaErrors: the customresource validator's metadata check on create up to 1.36
// (ValidateObjectMetaAccessor).
func customResourceMetaErrors(m *metav1.ObjectMeta, namespaced bool) field.ErrorList {
	return validation.ValidateObjectMetaAccessor(m, namespaced, validation.NameIsDNSSubdomain, field.NewPath("metadata"))
}
