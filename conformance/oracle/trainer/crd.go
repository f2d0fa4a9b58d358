package main

// What kube-apiserver does with a TrainJob or a runtime before the trainer's webhooks: the
// CRD's structural pruning and defaults, then its schema, list-type and CEL validation, with
// apiextensions-apiserver's own code, on the CRDs the trainer release publishes
// (manifests/base/crds in the trainer module).

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	apiextensions "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/cel"
	structuraldefaulting "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/defaulting"
	structurallisttype "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/listtype"
	structuralpruning "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/pruning"
	apiservervalidation "k8s.io/apiextensions-apiserver/pkg/apiserver/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
	celconfig "k8s.io/apiserver/pkg/apis/cel"
	"sigs.k8s.io/yaml"
)

type crdSchema struct {
	structural *structuralschema.Structural
	validator  apiservervalidation.SchemaValidator
	cel        *cel.Validator
}

func loadCRD(dir, file string) (*crdSchema, error) {
	raw, err := os.ReadFile(filepath.Join(dir, file))
	if err != nil {
		return nil, err
	}
	var crd apiextensionsv1.CustomResourceDefinition
	if err := yaml.Unmarshal(raw, &crd); err != nil {
		return nil, fmt.Errorf("%s: %v", file, err)
	}
	var internal apiextensions.JSONSchemaProps
	if err := apiextensionsv1.Convert_v1_JSONSchemaProps_To_apiextensions_JSONSchemaProps(crd.Spec.Versions[0].Schema.OpenAPIV3Schema, &internal, nil); err != nil {
		return nil, err
	}
	ss, err := structuralschema.NewStructural(&internal)
	if err != nil {
		return nil, err
	}
	v, _, err := apiservervalidation.NewSchemaValidator(&internal)
	if err != nil {
		return nil, err
	}
	return &crdSchema{structural: ss, validator: v, cel: cel.NewValidator(ss, true, celconfig.PerCallLimit)}, nil
}

// admit prunes and defaults obj in place (as decoding a request body does) and returns the
// validation errors of customResourceStrategy.Validate's schema, list-type and CEL steps.
func (c *crdSchema) admit(obj map[string]any) field.ErrorList {
	structuraldefaulting.PruneNonNullableNullsWithoutDefaults(obj, c.structural)
	structuraldefaulting.Default(obj, c.structural)
	structuralpruning.Prune(obj, c.structural, true)
	var errs field.ErrorList
	errs = append(errs, apiservervalidation.ValidateCustomResource(nil, obj, c.validator)...)
	errs = append(errs, structurallisttype.ValidateListSetsAndMaps(nil, c.structural, obj)...)
	blocking := false
	for _, e := range errs {
		switch e.Type {
		case field.ErrorTypeNotSupported, field.ErrorTypeRequired, field.ErrorTypeTooLong, field.ErrorTypeTooMany, field.ErrorTypeTypeInvalid:
			blocking = true
		}
	}
	if blocking {
		errs = append(errs, field.Invalid(nil, nil, "some validation rules were not checked because the object was invalid; correct the existing errors to complete validation"))
	} else {
		celErrs, _ := c.cel.Validate(context.Background(), nil, c.structural, obj, nil, celconfig.RuntimeCELCostBudget)
		errs = append(errs, celErrs...)
	}
	return errs
}
