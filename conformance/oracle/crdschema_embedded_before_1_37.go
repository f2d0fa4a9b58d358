//go:build k8s_before_1_37

package main

import (
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	schemaobjectmeta "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/objectmeta"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// embeddedErrors: the customresource strategy's check of embedded resources.
func embeddedErrors(u map[string]any, ss *structuralschema.Structural) field.ErrorList {
	return schemaobjectmeta.Validate(nil, u, ss, false)
}
