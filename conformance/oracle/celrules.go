package main

// The CEL leg: a CRD's x-kubernetes-validations rules evaluated on create, as
// apiextensions-apiserver does it. Each case is a CustomResourceDefinition (kind Widget, group
// example.com) whose spec has a fixed realistic shape (an integer, a string, an enum-like mode,
// a number, a boolean, an int-or-string, a list of strings, a list of objects, a map of strings)
// with rules drawn from a grammar of the rules CRDs carry (presence with has(), comparisons,
// size(), the all/exists/exists_one/map/filter macros, string functions, matches() with RE2
// patterns, `in`, ternaries, the lists and strings libraries, rules that fail at run time: a
// missing key, an index out of bounds, division by zero, integer overflow; transition rules that
// use oldSelf), placed on the root, spec, the lists, their items and the map, each with or
// without message, messageExpression (good, failing, empty), reason and fieldPath; and an object
// drawn around it (fields present or not, values on either side of each rule).
//
// Upstream's answer is the create path of the CRD handler, as in the crdSchema leg (CRD
// validation, which compiles every rule and refuses a CRD whose rules do not compile or cost too
// much: such cases are skipped and counted; pruning, defaulting, ValidateCustomResource, the
// list types), then the strategy's CEL step: cel.NewValidator(schema, true, PerCallLimit)
// .Validate with no old object and RuntimeCELCostBudget, unless an earlier error blocks it
// (hasBlockingErr's one error instead).

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	crdvalidation "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/validation"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	apiextensionscel "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/cel"
	structuraldefaulting "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/defaulting"
	structurallisttype "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/listtype"
	structuralpruning "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/pruning"
	apiservervalidation "k8s.io/apiextensions-apiserver/pkg/apiserver/validation"
	celconfig "k8s.io/apiserver/pkg/apis/cel"
	utiljson "k8s.io/apimachinery/pkg/util/json"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

func upstreamCEL(raw []byte) (map[string]any, error) {
	var in crdSchemaInput
	if err := json.Unmarshal(raw, &in); err != nil {
		return nil, err
	}
	if len(in.Crds) != 1 {
		return nil, fmt.Errorf("cel: one CRD expected")
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
		if len(first) > 160 {
			first = first[:160]
		}
		return nil, fmt.Errorf("cel: CRD refused: %s", first)
	}
	var props *apiextensions.JSONSchemaProps
	if crd.Spec.Validation != nil {
		props = crd.Spec.Validation.OpenAPIV3Schema
	} else if len(crd.Spec.Versions) > 0 && crd.Spec.Versions[0].Schema != nil {
		props = crd.Spec.Versions[0].Schema.OpenAPIV3Schema
	}
	if props == nil {
		return nil, fmt.Errorf("cel: no schema")
	}
	ss, err := structuralschema.NewStructural(props)
	if err != nil {
		return nil, err
	}
	var u map[string]any
	if err := utiljson.Unmarshal(in.Object, &u); err != nil {
		return nil, err
	}
	structuralpruning.PruneWithOptions(u, ss, true, structuralschema.UnknownFieldPathOptions{})
	structuraldefaulting.PruneNonNullableNullsWithoutDefaults(u, ss)
	structuraldefaulting.Default(u, ss)
	validator, _, err := apiservervalidation.NewSchemaValidator(props)
	if err != nil {
		return nil, err
	}
	var errs field.ErrorList
	errs = append(errs, apiservervalidation.ValidateCustomResource(nil, u, validator)...)
	errs = append(errs, structurallisttype.ValidateListSetsAndMaps(nil, ss, u)...)
	if celValidator := apiextensionscel.NewValidator(ss, true, celconfig.PerCallLimit); celValidator != nil {
		blocked := false
		for _, e := range errs {
			switch e.Type {
			case field.ErrorTypeNotSupported, field.ErrorTypeRequired, field.ErrorTypeTooLong, field.ErrorTypeTooMany, field.ErrorTypeTypeInvalid:
				blocked = true
			}
		}
		if blocked {
			errs = append(errs, field.Invalid(nil, nil, "some validation rules were not checked because the object was invalid; correct the existing errors to complete validation"))
		} else {
			celErrs, _ := celValidator.Validate(context.Background(), nil, ss, u, nil, celconfig.RuntimeCELCostBudget)
			errs = append(errs, celErrs...)
		}
	}
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

var celSpecRules = []string{
	"self.replicas >= 0",
	"self.replicas <= 3",
	"!has(self.replicas) || self.replicas > 1",
	"has(self.name) ? self.name.size() <= 5 : true",
	"self.name.size() > 0",
	"has(self.mode) && self.mode == 'InOrder' ? !has(self.items) : true",
	"!(has(self.mode) && self.mode == 'InOrder' && has(self.items) && self.items.exists(i, has(i.dependsOn)))",
	"self.mode in ['InOrder', 'AnyOrder']",
	"self.ratio > 0.5",
	"self.ratio * 2.0 < 3.0",
	"self.enabled",
	"!self.enabled || has(self.name)",
	"self.replicas % 2 == 0",
	"self.replicas / (self.replicas - 1) >= 0",
	"self.replicas * 4611686018427387904 > 0",
	"self.replicas + 9223372036854775806 > 0",
	"self.items.all(i, i.port > 0)",
	"!has(self.items) || self.items.all(i, !has(i.port) || i.port < 100)",
	"has(self.items) && self.items.exists(i, i.name == 'a')",
	"self.items.exists_one(i, i.name.startsWith('a'))",
	"self.items[0].port > 0",
	"self.items.map(i, i.name).exists(n, n == 'b')",
	"self.items.filter(i, has(i.port)).size() <= 1",
	"size(self.tags) < 3",
	"self.tags.exists_one(t, t == 'a')",
	"self.tags.all(t, t.matches('^[a-z]+$'))",
	"self.tags.isSorted()",
	"self.tags.map(t, t.size()).sum() < 5",
	"self.tags.join(',').size() < 6",
	"self.tags.indexOf('b') <= 0",
	"!has(self.tags) || !self.tags.exists(t, t in self.labels)",
	"self.name.matches('^[a-z][-a-z0-9]*$')",
	"self.name.matches('a|b')",
	"self.name.startsWith('a') || self.name.endsWith('z')",
	"self.name.contains('-')",
	"self.name.lowerAscii() == self.name",
	"self.name.upperAscii() != self.name",
	"self.name.split('-').size() <= 2",
	"self.name.indexOf('b') < 2",
	"self.name.trim() == self.name",
	"'x' in self.labels",
	"self.labels.all(k, self.labels[k].size() < 4)",
	"self.labels.exists(k, k.startsWith('a'))",
	"size(self.labels) <= 2",
	"self.labels['x'] == 'y'",
	"type(self.port) == int ? self.port > 0 : self.port.startsWith('p')",
	"type(self.port) == string || self.port < 10",
	"self.replicas == 1 || self.name == 'a' || self.ratio == 1.0",
	"int(self.ratio) == 1",
	"string(self.replicas) == '2'",
	"double(self.replicas) < self.ratio",
	"self == oldSelf",
	"!has(oldSelf.name) || self.name == oldSelf.name",
	"[1, 2, 3].exists(x, x == self.replicas)",
	"self.replicas in [1, 2]",
	"{'a': 1}.exists(k, k == self.name)",
	"true",
	"false",
	"self.name != ''",
}

var celItemRules = []string{
	"self.port > 0",
	"has(self.port)",
	"!has(self.dependsOn) || self.dependsOn != self.name",
	"self.name.size() <= 3",
	"self.name.matches('^[a-c]+$')",
	"has(self.port) == has(self.dependsOn)",
	"self.port < 50 || self.name == 'b'",
}

var celListRules = []string{
	"self.size() <= 2",
	"self.all(i, has(i.port))",
	"self.exists(i, i.name == 'a')",
	"self.map(i, i.name).isSorted()",
	"self.all(a, self.exists_one(b, b.name == a.name))",
	"self.filter(i, has(i.dependsOn)).all(i, self.exists(j, j.name == i.dependsOn))",
	"size(self) == 0 || self[0].name == 'a'",
}

var celTagRules = []string{"self.size() < 3", "self.all(t, t.size() > 0)", "'a' in self", "self.exists(t, t.matches('[0-9]'))", "self == ['a', 'b']"}
var celStringRules = []string{"self.size() <= 4", "self.matches('^[a-z]+$')", "self != 'b'", "self.startsWith('a')", "self.endsWith('c')", "!self.contains(' ')"}
var celMapRules = []string{"self.size() <= 1", "self.all(k, k.size() == 1)", "!('bad' in self)", "self.exists(k, self[k] == 'y')"}
var celRootRules = []string{"self.metadata.name.size() < 4", "self.metadata.name.startsWith('w')", "has(self.spec)", "!has(self.spec.name) || self.spec.name != self.metadata.name", "self.kind == 'Widget'", "self.apiVersion.startsWith('example.com/')"}

var celNames = []string{"a", "b", "ab", "abc", "b-c", "A", "a b", "", "xyz", "a-b-c", "p1"}
var celModes = []string{"InOrder", "AnyOrder", "Other"}

// Message expressions that compile on every node, then those of one kind of node (the last
// ones fail at run time on some objects: the API server falls back to the message).
var celMessageExprs = []string{"'rule failed'", "'  '", "'a\\nb'", "' trimmed '", "''"}

func (g gen) celRule(rules []string, fieldPaths []string, msgExprs []string) map[string]any {
	r := map[string]any{"rule": rules[g.r.IntN(len(rules))]}
	pickExpr := func() string {
		if len(msgExprs) > 0 && g.chance(0.6) {
			return msgExprs[g.r.IntN(len(msgExprs))]
		}
		return celMessageExprs[g.r.IntN(len(celMessageExprs))]
	}
	switch g.r.IntN(6) {
	case 1:
		r["message"] = g.pick("must be good", " spaced message ", "replicas must be valid").(string)
	case 2:
		r["messageExpression"] = pickExpr()
	case 3:
		r["message"] = "fallback message"
		r["messageExpression"] = pickExpr()
	}
	if g.chance(0.3) {
		r["reason"] = g.pick("FieldValueInvalid", "FieldValueForbidden", "FieldValueRequired", "FieldValueDuplicate").(string)
	}
	if len(fieldPaths) > 0 && g.chance(0.25) {
		r["fieldPath"] = fieldPaths[g.r.IntN(len(fieldPaths))]
	}
	return r
}

func (g gen) celRules(rules []string, fieldPaths []string, msgExprs []string, p float64) []any {
	if !g.chance(p) {
		return nil
	}
	out := []any{}
	for n := 1 + g.r.IntN(3); n > 0; n-- {
		out = append(out, g.celRule(rules, fieldPaths, msgExprs))
	}
	return out
}

func withRules(s map[string]any, rules []any) map[string]any {
	if len(rules) > 0 {
		s["x-kubernetes-validations"] = rules
	}
	return s
}

func (g gen) celSchema() (root []any, spec map[string]any) {
	// Rules on a node stringify self in some messageExpressions: only where self is a string.
	strRule := func(rules []string) []string { return rules }
	item := map[string]any{
		"type": "object",
		"properties": map[string]any{
			"name":      map[string]any{"type": "string", "maxLength": 8},
			"port":      map[string]any{"type": "integer"},
			"dependsOn": map[string]any{"type": "string", "maxLength": 8},
		},
	}
	if g.chance(0.5) {
		item["required"] = []any{"name"}
	}
	withRules(item, g.celRules(celItemRules, []string{".port", ".name"}, []string{"'item ' + self.name", "'port ' + string(self.port)"}, 0.3))
	items := map[string]any{"type": "array", "maxItems": 4, "items": item}
	if g.chance(0.3) {
		items["x-kubernetes-list-type"] = "map"
		items["x-kubernetes-list-map-keys"] = []any{"name"}
		item["required"] = []any{"name"}
	}
	withRules(items, g.celRules(celListRules, nil, []string{"'list of ' + string(self.size())", "'first ' + self[0].name"}, 0.3))
	tags := withRules(map[string]any{"type": "array", "maxItems": 4, "items": withRules(map[string]any{"type": "string", "maxLength": 8}, g.celRules(strRule(celStringRules), nil, []string{"'bad value: ' + self", "self + ' is wrong'"}, 0.15))}, g.celRules(celTagRules, nil, []string{"'tags: ' + self.join(',')", "'tag ' + self[0]"}, 0.2))
	labels := withRules(map[string]any{"type": "object", "maxProperties": 4, "additionalProperties": map[string]any{"type": "string", "maxLength": 8}}, g.celRules(celMapRules, nil, []string{"'map of ' + string(self.size())", "'x is ' + self['x']"}, 0.2))
	spec = map[string]any{
		"type": "object",
		"properties": map[string]any{
			"replicas": map[string]any{"type": "integer"},
			"name":     withRules(map[string]any{"type": "string", "maxLength": 8}, g.celRules(strRule(celStringRules), nil, []string{"'bad value: ' + self"}, 0.2)),
			"mode":     map[string]any{"type": "string", "maxLength": 10},
			"ratio":    map[string]any{"type": "number"},
			"enabled":  map[string]any{"type": "boolean"},
			"port":     map[string]any{"x-kubernetes-int-or-string": true, "maxLength": 8},
			"items":    items,
			"tags":     tags,
			"labels":   labels,
		},
	}
	withRules(spec, g.celRules(celSpecRules, []string{".replicas", ".name", ".items", ".labels", "['labels']", ".labels['x']"}, []string{"'name ' + self.name", "string(self.replicas) + ' replicas'", "'mode ' + self.mode"}, 0.9))
	return g.celRules(celRootRules, []string{".spec", ".spec.name"}, []string{"'object ' + self.metadata.name", "'spec name ' + self.spec.name"}, 0.2), spec
}

func (g gen) celValue() map[string]any {
	v := map[string]any{}
	if g.chance(0.7) {
		v["replicas"] = g.pick(int64(0), int64(1), int64(2), int64(3), int64(4), int64(-1), int64(7)).(int64)
	}
	if g.chance(0.7) {
		v["name"] = celNames[g.r.IntN(len(celNames))]
	}
	if g.chance(0.5) {
		v["mode"] = celModes[g.r.IntN(len(celModes))]
	}
	if g.chance(0.5) {
		v["ratio"] = g.pick(0.25, 0.5, 1.0, 1.5, 2.0, float64(3)).(float64)
	}
	if g.chance(0.5) {
		v["enabled"] = g.chance(0.5)
	}
	if g.chance(0.4) {
		v["port"] = g.pick(int64(0), int64(8080), int64(5), "p1", "http", "").(any)
	}
	if g.chance(0.6) {
		items := []any{}
		for n := g.r.IntN(4); n > 0; n-- {
			it := map[string]any{}
			if g.chance(0.9) {
				it["name"] = g.pick("a", "b", "c", "ab", "abcd").(string)
			}
			if g.chance(0.6) {
				it["port"] = g.pick(int64(0), int64(1), int64(80), int64(-3)).(int64)
			}
			if g.chance(0.3) {
				it["dependsOn"] = g.pick("a", "b", "z").(string)
			}
			items = append(items, it)
		}
		v["items"] = items
	}
	if g.chance(0.5) {
		tags := []any{}
		for n := g.r.IntN(4); n > 0; n-- {
			tags = append(tags, g.pick("a", "b", "c", "a1", "", "zz").(string))
		}
		v["tags"] = tags
	}
	if g.chance(0.5) {
		labels := map[string]any{}
		for n := g.r.IntN(3); n > 0; n-- {
			labels[g.pick("x", "a", "ab", "bad").(string)] = g.pick("y", "", "abc", "long").(string)
		}
		v["labels"] = labels
	}
	return v
}

func (g gen) validateCEL() map[string]any {
	rootRules, spec := g.celSchema()
	doc := crdDocument(spec)
	if len(rootRules) > 0 {
		versions := doc["spec"].(map[string]any)["versions"].([]any)
		schema := versions[0].(map[string]any)["schema"].(map[string]any)["openAPIV3Schema"].(map[string]any)
		schema["x-kubernetes-validations"] = rootRules
	}
	obj := map[string]any{
		"apiVersion": "example.com/v1", "kind": "Widget",
		"metadata": map[string]any{"name": g.pick("w", "web", "widget").(string), "namespace": "default"},
		"spec":     g.celValue(),
	}
	crd, _ := json.Marshal(doc)
	_ = strings.TrimSpace
	return map[string]any{
		"object":          obj,
		"fieldValidation": "Strict",
		"crds":            []any{map[string]any{"source": string(crd)}},
	}
}
