//go:build k8s_before_1_33

package main

import (
	"k8s.io/apimachinery/pkg/util/validation/field"
	api "k8s.io/kubernetes/pkg/apis/core"
	"k8s.io/kubernetes/pkg/apis/core/validation"
)

// clusterIPsRelated: ValidateServiceClusterIPsRelatedFields on create (no old Service before 1.33).
func clusterIPsRelated(svc *api.Service) field.ErrorList {
	return validation.ValidateServiceClusterIPsRelatedFields(svc)
}
