package main

// The CRD schema leg: custom resources against random structural schemas, as
// apiextensions-apiserver admits them on create. Each case is a CustomResourceDefinition (kind
// Widget, group example.com, one version) whose spec schema is drawn at random (every type,
// nullable, int-or-string, preserve-unknown-fields, defaults, enums, numeric and length limits,
// patterns, the formats restartkit checks, item and property counts, uniqueItems, list types,
// allOf/anyOf/oneOf/not with value validations) and an object drawn around it (valid values,
// values just past each limit, wrong types, nulls, missing required fields, duplicates, unknown
// fields), with a field validation of Strict, Warn or Ignore.
//
// Upstream's answer is the create path of the CRD handler: the CRD must pass the API server's
// own CRD validation (ValidateCustomResourceDefinition; a CRD it refuses is skipped and
// counted), the object is pruned with the structural schema (the unknown fields: under Strict
// the request fails with one `strict decoding error: unknown field "<path>"` each, and nothing
// else is said), non-nullable nulls without a default are dropped, the schema's defaults are
// applied, and the strategy's checks run: ValidateCustomResource with the version's schema
// validator and ValidateListSetsAndMaps. Errors are compared by field and type, and each error's
// full text must be in restartkit's messages.

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	crdvalidation "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/validation"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	structuraldefaulting "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/defaulting"
	structurallisttype "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/listtype"
	structuralpruning "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/pruning"
	apiservervalidation "k8s.io/apiextensions-apiserver/pkg/apiserver/validation"
	"k8s.io/apimachinery/pkg/runtime"
	utiljson "k8s.io/apimachinery/pkg/util/json"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

var crdScheme = func() *runtime.Scheme {
	s := runtime.NewScheme()
	if err := apiextensionsv1.AddToScheme(s); err != nil {
		panic(err)
	}
	if err := apiextensions.AddToScheme(s); err != nil {
		panic(err)
	}
	return s
}()

type crdSchemaInput struct {
	Object          json.RawMessage `json:"object"`
	FieldValidation string          `json:"fieldValidation"`
	Crds            []struct {
		Source string `json:"source"`
	} `json:"crds"`
}

func upstreamCRDSchema(raw []byte) (map[string]any, error) {
	var in crdSchemaInput
	if err := json.Unmarshal(raw, &in); err != nil {
		return nil, err
	}
	if len(in.Crds) != 1 {
		return nil, fmt.Errorf("crdSchema: one CRD expected")
	}
	var v1crd apiextensionsv1.CustomResourceDefinition
	if err := json.Unmarshal([]byte(in.Crds[0].Source), &v1crd); err != nil {
		return nil, err
	}
	apiextensionsv1.SetObjectDefaults_CustomResourceDefinition(&v1crd)
	var crd apiextensions.CustomResourceDefinition
	if err := crdScheme.Convert(&v1crd, &crd, nil); err != nil {
		return nil, err
	}
	if errs := crdvalidation.ValidateCustomResourceDefinition(context.Background(), &crd); len(errs) > 0 {
		first := errs[0].Error()
		if i := strings.LastIndex(first, "]: "); i > 0 {
			first = first[i+3:]
		}
		if len(first) > 80 {
			first = first[:80]
		}
		return nil, fmt.Errorf("crdSchema: CRD refused: %s", first)
	}
	// The internal CRD keeps a schema shared by every version in spec.validation.
	var props *apiextensions.JSONSchemaProps
	if crd.Spec.Validation != nil {
		props = crd.Spec.Validation.OpenAPIV3Schema
	} else if len(crd.Spec.Versions) > 0 && crd.Spec.Versions[0].Schema != nil {
		props = crd.Spec.Versions[0].Schema.OpenAPIV3Schema
	}
	if props == nil {
		return nil, fmt.Errorf("crdSchema: no schema")
	}
	ss, err := structuralschema.NewStructural(props)
	if err != nil {
		return nil, err
	}
	var u map[string]any
	if err := utiljson.Unmarshal(in.Object, &u); err != nil {
		return nil, err
	}
	unknown := structuralpruning.PruneWithOptions(u, ss, true, structuralschema.UnknownFieldPathOptions{TrackUnknownFieldPaths: true})
	if in.FieldValidation == "Strict" && len(unknown) > 0 {
		errs := []any{}
		for _, p := range unknown {
			errs = append(errs, map[string]any{"field": "", "type": nil, "message": fmt.Sprintf(`strict decoding error: unknown field "%s"`, p)})
		}
		return map[string]any{"valid": false, "errors": errs}, nil
	}
	structuraldefaulting.PruneNonNullableNullsWithoutDefaults(u, ss)
	structuraldefaulting.Default(u, ss)
	validator, _, err := apiservervalidation.NewSchemaValidator(props)
	if err != nil {
		return nil, err
	}
	var errs field.ErrorList
	errs = append(errs, apiservervalidation.ValidateCustomResource(nil, u, validator)...)
	errs = append(errs, embeddedErrors(u, ss)...)
	errs = append(errs, structurallisttype.ValidateListSetsAndMaps(nil, ss, u)...)
	exp := errorsExpect(errs)
	msgs := []any{}
	for _, e := range errs {
		msgs = append(msgs, e.Error())
	}
	if len(msgs) > 0 {
		exp["errorMessages"] = msgs
	}
	return exp, nil
}

// ---------------------------------------------------------------------------------------------
// Generators.
// ---------------------------------------------------------------------------------------------

var crdPatterns = []string{"^[a-z]+$", "^a", "b$", "[0-9]", "^[a-z0-9]([-a-z0-9]*[a-z0-9])?$", "x|y"}
var crdWords = []string{"a", "b", "ab", "abc", "x", "y", "A", "a-b", "0", "9z", "", "abcdef", "héllo", "a b"}
var crdFormats = []string{"uuid", "uuid3", "uuid4", "uuid5", "date", "password", "byte"}
var crdFormatValues = []string{"123e4567-e89b-12d3-a456-426614174000", "123e4567-e89b-42d3-a456-426614174000",
	"123e4567-e89b-32d3-a456-426614174000", "123e4567-e89b-52d3-9456-426614174000", "123E4567E89B12D3A456426614174000",
	"123e4567-e89b-12d3-a456-42661417400", "2024-02-29", "2023-02-29", "2023-13-01", "2023-1-01", "1999-12-31", "x",
	"aGk=", "aGVsbG8h", "aGk", "a=b=", "ab=="}
var crdKeys = []string{"a", "b", "c", "d", "name", "size"}

func (g gen) crdInt() int64 {
	return int64(g.pick(-2, -1, 0, 1, 2, 3, 5, 10, 100, 2147483647, 2147483648).(int))
}

func (g gen) crdFloat() float64 {
	return g.pick(-1.5, 0.0, 0.25, 0.5, 1.0, 1.5, 2.5, 3.0, 10.0, 0.1, 1e21, 1e-5).(float64)
}

// crdValueValidations: the keywords allowed inside allOf/anyOf/oneOf/not (value validations
// only) for a node of type t.
func (g gen) crdValueValidations(t string) map[string]any {
	s := map[string]any{}
	switch t {
	case "string":
		switch g.r.IntN(4) {
		case 0:
			s["minLength"] = g.r.IntN(4)
		case 1:
			s["maxLength"] = g.r.IntN(4)
		case 2:
			s["pattern"] = g.pick(any(crdPatterns[0]), crdPatterns[1], crdPatterns[2], crdPatterns[3]).(string)
		default:
			s["enum"] = []any{g.pick(crdWords[0], crdWords[1], crdWords[2]).(string), "x"}
		}
	case "integer", "number":
		switch g.r.IntN(3) {
		case 0:
			s["minimum"] = g.crdInt()
		case 1:
			s["maximum"] = g.crdInt()
		default:
			s["enum"] = []any{g.crdInt(), g.crdInt()}
		}
	default:
		s["enum"] = []any{true}
	}
	return s
}

func (g gen) crdScalarSchema(t string) map[string]any {
	s := map[string]any{"type": t}
	switch t {
	case "string":
		if g.chance(0.3) {
			s["maxLength"] = g.r.IntN(5)
		}
		if g.chance(0.2) {
			s["minLength"] = g.r.IntN(3)
		}
		if g.chance(0.25) {
			s["pattern"] = crdPatterns[g.r.IntN(len(crdPatterns))]
		}
		if g.chance(0.2) {
			s["format"] = crdFormats[g.r.IntN(len(crdFormats))]
		}
		if g.chance(0.2) {
			vals := []any{}
			for n := 1 + g.r.IntN(3); n > 0; n-- {
				vals = append(vals, crdWords[g.r.IntN(len(crdWords))])
			}
			s["enum"] = vals
		}
	case "integer", "number":
		if g.chance(0.3) {
			s["minimum"] = g.pick(any(g.crdInt()), g.crdFloat())
			if g.chance(0.3) {
				s["exclusiveMinimum"] = true
			}
		}
		if g.chance(0.3) {
			s["maximum"] = g.pick(any(g.crdInt()), g.crdFloat())
			if g.chance(0.3) {
				s["exclusiveMaximum"] = true
			}
		}
		if g.chance(0.2) {
			s["multipleOf"] = g.pick(2, 3, 0.5, 0.25, 2.5, 10).(any)
		}
		if g.chance(0.2) {
			if t == "integer" {
				s["format"] = g.pick("int32", "int64", "byte").(string)
			} else {
				s["format"] = g.pick("float", "double", "int32").(string)
			}
		}
		if g.chance(0.15) {
			s["enum"] = []any{g.crdInt(), g.pick(any(g.crdInt()), g.crdFloat(), "1")}
		}
	case "boolean":
		if g.chance(0.1) {
			s["enum"] = []any{true}
		}
	}
	if g.chance(0.15) {
		key := g.pick("allOf", "anyOf", "oneOf", "not").(string)
		if key == "not" {
			s["not"] = g.crdValueValidations(t)
		} else {
			alts := []any{}
			for n := 1 + g.r.IntN(3); n > 0; n-- {
				alts = append(alts, g.crdValueValidations(t))
			}
			s[key] = alts
		}
	}
	return s
}

func (g gen) crdSchema(depth int) map[string]any {
	var s map[string]any
	k := g.r.IntN(10)
	if depth >= 3 && k >= 6 {
		k = g.r.IntN(6)
	}
	switch k {
	case 0, 1:
		s = g.crdScalarSchema("string")
	case 2:
		s = g.crdScalarSchema("integer")
	case 3:
		s = g.crdScalarSchema("number")
	case 4:
		s = g.crdScalarSchema("boolean")
	case 5:
		s = map[string]any{"x-kubernetes-int-or-string": true}
		if g.chance(0.3) {
			s["anyOf"] = []any{map[string]any{"type": "integer"}, map[string]any{"type": "string"}}
		}
	case 6, 7:
		s = g.crdObjectSchema(depth + 1)
	default:
		s = g.crdArraySchema(depth + 1)
	}
	if g.chance(0.15) {
		s["nullable"] = true
	}
	if g.chance(0.15) {
		s["default"] = g.crdValue(s, depth, true)
	}
	return s
}

func (g gen) crdObjectSchema(depth int) map[string]any {
	s := map[string]any{"type": "object"}
	if depth > 1 && g.chance(0.12) {
		// An embedded resource: apiVersion, kind and metadata are its own.
		s["x-kubernetes-embedded-resource"] = true
		if g.chance(0.5) {
			s["x-kubernetes-preserve-unknown-fields"] = true
		} else {
			s["properties"] = map[string]any{"spec": map[string]any{"type": "object", "x-kubernetes-preserve-unknown-fields": true}}
		}
		return s
	}
	if g.chance(0.2) {
		s["additionalProperties"] = g.crdSchema(depth)
	} else if g.chance(0.1) {
		s["x-kubernetes-preserve-unknown-fields"] = true
	} else {
		props := map[string]any{}
		for n := 1 + g.r.IntN(4); n > 0; n-- {
			props[crdKeys[g.r.IntN(len(crdKeys))]] = g.crdSchema(depth)
		}
		s["properties"] = props
		if g.chance(0.4) {
			req := []any{}
			for k := range props {
				if g.chance(0.5) {
					req = append(req, k)
				}
			}
			if g.chance(0.1) {
				req = append(req, "zz")
			}
			if len(req) > 0 {
				s["required"] = req
			}
		}
		if g.chance(0.15) {
			s["x-kubernetes-preserve-unknown-fields"] = true
		}
	}
	if g.chance(0.15) {
		s["minProperties"] = g.r.IntN(3)
	}
	if g.chance(0.15) {
		s["maxProperties"] = g.r.IntN(3)
	}
	return s
}

func (g gen) crdArraySchema(depth int) map[string]any {
	s := map[string]any{"type": "array"}
	switch g.r.IntN(5) {
	case 0:
		// A map list: object items keyed by a required field.
		item := map[string]any{"type": "object", "required": []any{"name"}, "properties": map[string]any{
			"name": map[string]any{"type": "string"}, "v": map[string]any{"type": "integer"}}}
		s["items"] = item
		s["x-kubernetes-list-type"] = "map"
		s["x-kubernetes-list-map-keys"] = []any{"name"}
	case 1:
		s["items"] = g.crdScalarSchema(g.pick("string", "integer").(string))
		s["x-kubernetes-list-type"] = g.pick("set", "atomic").(string)
	default:
		s["items"] = g.crdSchema(depth)
	}
	if g.chance(0.2) {
		s["minItems"] = g.r.IntN(3)
	}
	if g.chance(0.2) {
		s["maxItems"] = g.r.IntN(3)
	}
	// uniqueItems: true is refused in a CRD (its cost is quadratic): not generated.
	return s
}

func schemaType(s map[string]any) string {
	if s["x-kubernetes-int-or-string"] == true {
		return "int-or-string"
	}
	t, _ := s["type"].(string)
	return t
}

// crdValue: a value for schema s; mostly of the right shape, now and then wrong (clean: always
// the right type, for defaults).
func (g gen) crdValue(s map[string]any, depth int, clean bool) any {
	if !clean && g.chance(0.06) {
		return nil
	}
	if !clean && g.chance(0.08) {
		return g.pick("str", int64(3), 2.5, true, []any{"x"}, map[string]any{"k": "v"}).(any)
	}
	if e, ok := s["enum"].([]any); ok && g.chance(0.6) {
		return e[g.r.IntN(len(e))]
	}
	switch schemaType(s) {
	case "string":
		if _, ok := s["format"]; ok && g.chance(0.6) {
			return crdFormatValues[g.r.IntN(len(crdFormatValues))]
		}
		return crdWords[g.r.IntN(len(crdWords))]
	case "integer":
		return g.crdInt()
	case "number":
		return g.pick(any(g.crdInt()), g.crdFloat())
	case "boolean":
		return g.chance(0.5)
	case "int-or-string":
		return g.pick(any(g.crdInt()), crdWords[g.r.IntN(len(crdWords))])
	case "array":
		items, _ := s["items"].(map[string]any)
		out := []any{}
		n := g.r.IntN(4)
		if clean {
			n = g.r.IntN(2)
		}
		for ; n > 0; n-- {
			if len(out) > 0 && g.chance(0.2) {
				out = append(out, out[0])
				continue
			}
			out = append(out, g.crdValue(items, depth+1, clean))
		}
		return out
	case "object":
		out := map[string]any{}
		if s["x-kubernetes-embedded-resource"] == true {
			if v := g.pick("v1", "apps/v1", "example.com/v1", "", "a/b/c", "/", int64(1), nil); v != nil {
				out["apiVersion"] = v
			}
			if v := g.pick("Pod", "Widget", "My_Kind", "", strings.Repeat("x", 64), "9lives", true, nil); v != nil {
				out["kind"] = v
			}
			if g.chance(0.5) {
				out["metadata"] = map[string]any{}
			}
			if g.chance(0.5) {
				out["spec"] = map[string]any{"any": int64(1)}
			}
			return out
		}
		if props, ok := s["properties"].(map[string]any); ok {
			for k, p := range props {
				if g.chance(0.75) || clean && g.chance(0.5) {
					out[k] = g.crdValue(p.(map[string]any), depth+1, clean)
				}
			}
		}
		if ap, ok := s["additionalProperties"].(map[string]any); ok {
			for n := g.r.IntN(3); n > 0; n-- {
				out[crdKeys[g.r.IntN(len(crdKeys))]] = g.crdValue(ap, depth+1, clean)
			}
		}
		if !clean && g.chance(0.12) {
			out[g.pick("extra", "Name", "other").(string)] = g.pick("x", int64(1), map[string]any{"y": int64(2)}).(any)
		}
		return out
	}
	return nil
}

func crdDocument(spec map[string]any) map[string]any {
	return map[string]any{
		"apiVersion": "apiextensions.k8s.io/v1",
		"kind":       "CustomResourceDefinition",
		"metadata":   map[string]any{"name": "widgets.example.com"},
		"spec": map[string]any{
			"group": "example.com",
			"names": map[string]any{"kind": "Widget", "listKind": "WidgetList", "plural": "widgets", "singular": "widget"},
			"scope": "Namespaced",
			"versions": []any{map[string]any{
				"name": "v1", "served": true, "storage": true,
				"schema": map[string]any{"openAPIV3Schema": map[string]any{
					"type":       "object",
					"properties": map[string]any{"spec": spec},
				}},
			}},
		},
	}
}

func (g gen) validateCRDSchema() map[string]any {
	spec := g.crdObjectSchema(1)
	delete(spec, "x-kubernetes-preserve-unknown-fields")
	if _, ok := spec["properties"]; !ok {
		if _, ok := spec["additionalProperties"]; !ok {
			spec["properties"] = map[string]any{"a": g.crdSchema(2)}
		}
	}
	obj := map[string]any{
		"apiVersion": "example.com/v1", "kind": "Widget",
		"metadata": map[string]any{"name": "w", "namespace": "default"},
		"spec":     g.crdValue(spec, 1, false),
	}
	if g.chance(0.05) {
		obj["status"] = map[string]any{"x": int64(1)}
	}
	crd, _ := json.Marshal(crdDocument(spec))
	return map[string]any{
		"object":          obj,
		"fieldValidation": g.pick("Strict", "Warn", "Ignore").(string),
		"crds":            []any{map[string]any{"source": string(crd)}},
	}
}

// jobsetValidateExpect: the API server's answer to a JobSet create for the JobSet webhook leg.
// The JobSet CRD's replicatedJobs is a list-type map keyed by name
// (config/components/crd/bases/jobset.x-k8s.io_jobsets.yaml), so the strategy's
// ValidateListSetsAndMaps refuses repeated names before any validating webhook is called; the
// webhook's verdict is the answer otherwise. (The leg's generator repeats names on purpose.)
func jobsetValidateExpect(raw []byte) (map[string]any, error) {
	var in struct {
		Object json.RawMessage `json:"object"`
	}
	if err := json.Unmarshal(raw, &in); err != nil {
		return nil, err
	}
	var u map[string]any
	if err := utiljson.Unmarshal(in.Object, &u); err != nil {
		return nil, err
	}
	listMap := "map"
	ss := &structuralschema.Structural{
		Generic: structuralschema.Generic{Type: "object"},
		Properties: map[string]structuralschema.Structural{
			"spec": {
				Generic: structuralschema.Generic{Type: "object"},
				Properties: map[string]structuralschema.Structural{
					"replicatedJobs": {
						Generic:    structuralschema.Generic{Type: "array"},
						Extensions: structuralschema.Extensions{XListType: &listMap, XListMapKeys: []string{"name"}},
						Items:      &structuralschema.Structural{Generic: structuralschema.Generic{Type: "object"}},
					},
				},
			},
		},
	}
	if errs := structurallisttype.ValidateListSetsAndMaps(nil, ss, u); len(errs) > 0 {
		exp := errorsExpect(errs)
		msgs := []any{}
		for _, e := range errs {
			msgs = append(msgs, e.Error())
		}
		exp["errorMessages"] = msgs
		return exp, nil
	}
	return jobsetExpect("validate")(raw)
}
