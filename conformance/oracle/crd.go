package main

// The validate(CustomResourceDefinition) leg: apiextensions.k8s.io/v1 CustomResourceDefinitions
// drawn around ValidateCustomResourceDefinition: metadata.name against plural+"."+group (another
// name, not a DNS subdomain, generateName only); groups without a dot, not DNS subdomains, and
// the protected k8s.io / kubernetes.io groups with and without a valid api-approved annotation;
// scopes; names (plural, singular, kind, listKind, shortNames, categories) empty, invalid or
// clashing; zero to three versions (bad and repeated names, zero or two storage versions,
// deprecation warnings too long, empty, with control or non-printable characters, or without
// `deprecated`); per-version schemas, subresources (status, scale paths), printer columns and
// selectable fields, identical in every version (the v1 conversion lifts them to the internal
// top level) or not; conversion strategies with webhook URLs and services; preserveUnknownFields;
// and structural schemas with one or two of the mistakes the schema checks catch (root type and
// nullable, the root fields allowed with the status subresource, uniqueItems, additionalProperties
// beside properties, non-structural nodes, unsupported keywords, map and list types, list-map
// keys, int-or-string, embedded resources, defaults in metadata or of the wrong type, bad
// patterns, allOf/anyOf/oneOf/not members that are not value validations or not in the
// structural part, and the static checks of x-kubernetes-validations on rules cel-go compiles at
// every minor). CustomResourceFieldSelectors is varied where settable (off, PrepareForCreate drops
// selectableFields).
//
// Upstream: the create path of kube-apiserver for a CRD: decoding into apiextensions/v1, the v1
// defaulting (SetObjectDefaults_CustomResourceDefinition), the conversion to the internal type,
// a name generated from generateName, the registry strategy's PrepareForCreate (status cleared,
// storedVersions from the storage version, gated fields dropped) and Validate
// (ValidateCustomResourceDefinition), then ObjectMeta's common checks if it passed. Errors are
// compared by field and type; the full message of each whose value prints as a scalar (a string,
// number, bool, nil or none) — values that are Go structs or slices print as Go dumps.

import (
	"encoding/json"
	"reflect"
	"sort"
	"strings"

	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	crdregistry "k8s.io/apiextensions-apiserver/pkg/registry/customresourcedefinition"
	genericvalidation "k8s.io/apimachinery/pkg/api/validation"
	"k8s.io/apimachinery/pkg/api/validation/path"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

var crdStrategy = crdregistry.NewStrategy(crdScheme)

func upstreamCRD(raw []byte) (map[string]any, error) {
	in, err := gatedValidateInput(raw)
	if err != nil {
		return nil, err
	}
	var v1crd apiextensionsv1.CustomResourceDefinition
	if err := json.Unmarshal(in.Object, &v1crd); err != nil {
		return nil, err
	}
	apiextensionsv1.SetObjectDefaults_CustomResourceDefinition(&v1crd)
	var crd apiextensions.CustomResourceDefinition
	if err := crdScheme.Convert(&v1crd, &crd, nil); err != nil {
		return nil, err
	}
	generated := ""
	if crd.GenerateName != "" && crd.Name == "" {
		generated = crdStrategy.GenerateName(crd.GenerateName)
		crd.Name = generated
	}
	crd.Namespace = "" // cluster-scoped
	ctx := createRequestCtx("", "apiextensions.k8s.io", "customresourcedefinitions")
	crdStrategy.PrepareForCreate(ctx, &crd)
	errs := crdStrategy.Validate(ctx, &crd)
	if len(errs) == 0 {
		errs = genericvalidation.ValidateObjectMetaAccessor(&crd.ObjectMeta, false, path.ValidatePathSegmentName, field.NewPath("metadata"))
	}
	exp := errorsExpect(errs)
	msgs := []any{}
	for _, e := range errs {
		if m, ok := crdErrorMessage(e, generated); ok {
			msgs = append(msgs, m)
		}
	}
	if len(msgs) > 0 {
		// upstream walks schema properties in Go map order: sorted, the vector is reproducible
		sort.Slice(msgs, func(i, j int) bool { return msgs[i].(string) < msgs[j].(string) })
		exp["errorMessages"] = msgs
	}
	return exp, nil
}

// crdErrorMessage: the text of e the leg compares: the whole message when its value prints as a
// scalar (Required, Forbidden and TooMany always), the detail alone when the value holds a
// generated name (its random characters are no fact about the object), nothing otherwise.
func crdErrorMessage(e *field.Error, generated string) (string, bool) {
	if s, ok := e.BadValue.(string); ok && generated != "" && strings.Contains(s, generated) {
		return e.Detail, true
	}
	switch e.Type {
	case field.ErrorTypeRequired, field.ErrorTypeForbidden, field.ErrorTypeTooMany:
		return maskAddresses(e.Error()), true
	}
	if e.BadValue == nil {
		return maskAddresses(e.Error()), true
	}
	v := reflect.ValueOf(e.BadValue)
	if v.Kind() == reflect.Pointer {
		if v.IsNil() {
			return maskAddresses(e.Error()), true
		}
		v = v.Elem()
	}
	switch v.Kind() {
	case reflect.String, reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Float32, reflect.Float64:
		return maskAddresses(e.Error()), true
	case reflect.Struct:
		if v.NumField() == 0 { // field's omitted value
			return maskAddresses(e.Error()), true
		}
	}
	return "", false
}

// ---------------------------------------------------------------------------------------------
// Generators.
// ---------------------------------------------------------------------------------------------

// crdAreas: what a case may get wrong, weighted by how many kinds of mistake each holds.
var crdAreas = []string{
	"name", "group", "group", "scope", "names", "names", "versions", "versions", "deprecation",
	"schemaPresence", "subresources", "subresources", "columns", "columns", "selectable", "selectable",
	"conversion", "conversion", "conversion", "conversion", "preserve",
	"schema", "schema", "schema", "schema", "schema", "schema", "schema", "schema", "schema", "schema",
	"schema", "schema",
}

// crdDraw: one case being drawn; bad names the areas that get a mistake (looked up, never
// iterated).
type crdDraw struct {
	g   gen
	bad map[string]bool
	// set by the schema mistakes for the other areas
	forceStatus   bool
	forcePreserve bool
	needF         bool
	sfKind        string
}

func (g gen) str(xs ...string) string { return xs[g.r.IntN(len(xs))] }

func crdCopy(v any) any {
	switch t := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(t))
		for k, x := range t {
			out[k] = crdCopy(x)
		}
		return out
	case []any:
		out := make([]any, len(t))
		for i, x := range t {
			out[i] = crdCopy(x)
		}
		return out
	}
	return v
}

func crdProps(s map[string]any) map[string]any {
	p, ok := s["properties"].(map[string]any)
	if !ok {
		p = map[string]any{}
		s["properties"] = p
	}
	return p
}

func (g gen) validateCRD() map[string]any {
	d := &crdDraw{g: g, bad: map[string]bool{}}
	if !g.chance(0.36) {
		d.bad[crdAreas[g.r.IntN(len(crdAreas))]] = true
		if g.chance(0.25) {
			d.bad[crdAreas[g.r.IntN(len(crdAreas))]] = true
		}
	}
	group := g.str("example.com", "stable.example.com", "widgets.acme.io")
	annotations := map[string]any{}
	if g.chance(0.1) {
		group = g.str("x.k8s.io", "foo.kubernetes.io")
		annotations["api-approved.kubernetes.io"] = g.str("https://github.com/kubernetes/kubernetes/pull/78458", "unapproved, experimental-only")
	}
	if d.bad["group"] {
		switch g.r.IntN(3) {
		case 0:
			group = g.str("", "example", "Example.com", "a_b.com")
		default:
			group = g.str("x.k8s.io", "foo.kubernetes.io", "k8s.io")
			if g.chance(0.5) {
				delete(annotations, "api-approved.kubernetes.io")
			} else {
				annotations["api-approved.kubernetes.io"] = g.str("yes", "approved", "example.com/pr/1")
			}
		}
	}
	names, plural := d.names()
	spec := map[string]any{"group": group, "names": names}
	scope := g.str("Namespaced", "Cluster")
	if d.bad["scope"] {
		scope = g.str("", "namespaced")
	}
	if scope != "" || g.chance(0.5) {
		spec["scope"] = scope
	}
	// Selectable fields first: more than 8 of them need the f0..f8 properties.
	sfKind := ""
	if d.bad["selectable"] {
		sfKind = g.str("ratio", "tags", "missing", "metadata", "metadata", "nodot", "empty", "dup", "many", "many", "oneVersion")
		d.needF = sfKind == "many"
	} else if g.chance(0.25) {
		sfKind = "valid"
	}
	d.sfKind = sfKind
	versions := d.versions(sfKind)
	if versions != nil {
		spec["versions"] = versions
	} else if g.chance(0.5) {
		spec["versions"] = []any{}
	}
	if c := d.conversion(); c != nil {
		spec["conversion"] = c
	}
	if d.bad["preserve"] || d.forcePreserve {
		spec["preserveUnknownFields"] = true
	} else if g.chance(0.2) {
		spec["preserveUnknownFields"] = false
	}
	meta := map[string]any{"name": plural + "." + group}
	if d.bad["name"] {
		switch g.r.IntN(4) {
		case 0:
			meta["name"] = g.str("other.example.com", plural+".example.org", plural)
		case 1:
			meta["name"] = g.str("Widgets.example.com", "widgets_x.com", "-widgets.example.com", strings.Repeat("w", 254))
		default:
			delete(meta, "name")
			meta["generateName"] = g.str("widgets-", plural+"."+group, "w")
		}
	}
	if len(annotations) > 0 {
		meta["annotations"] = annotations
	}
	obj := map[string]any{"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition", "metadata": meta, "spec": spec}
	if g.chance(0.1) {
		// Cleared by PrepareForCreate.
		obj["status"] = map[string]any{"storedVersions": []any{"v0"}, "acceptedNames": map[string]any{"plural": "Bad_Name", "kind": ""}}
	}
	gates := map[string]bool{}
	if set, on := g.chance(0.6), g.chance(0.5); set && settableGate("CustomResourceFieldSelectors") {
		gates["CustomResourceFieldSelectors"] = on
	}
	return map[string]any{"object": obj, "featureGates": gatesOf(gates)}
}

func (d *crdDraw) names() (map[string]any, string) {
	g := d.g
	bad := []string{"Widgets", "wid_get", "-x", strings.Repeat("w", 64)}
	plural := "widgets"
	kind := g.str("Widget", "Widget", "WidGet")
	n := map[string]any{"plural": plural, "kind": kind}
	if g.chance(0.6) {
		n["singular"] = "widget"
	}
	if g.chance(0.5) {
		n["listKind"] = kind + "List"
	}
	if g.chance(0.25) {
		n["shortNames"] = []any{g.str("wd", "wdg")}
	}
	if g.chance(0.2) {
		n["categories"] = []any{g.str("all", "example")}
	}
	if d.bad["names"] {
		switch g.r.IntN(8) {
		case 0:
			plural = g.str(append(bad, "")...)
			n["plural"] = plural
		case 1:
			n["singular"] = g.str(bad...)
		case 2:
			n["kind"] = g.str("", "wid_get", "-x", "Wid.get", strings.Repeat("W", 64))
		case 3:
			n["listKind"] = g.str("wid_get", "-x", strings.Repeat("W", 64))
		case 4:
			n["listKind"] = n["kind"]
		case 5:
			n["shortNames"] = []any{"wd", g.str(bad...)}
		case 6:
			n["categories"] = []any{"all", g.str(bad...)}
		default:
			n["kind"] = ""
			delete(n, "singular")
			delete(n, "listKind")
		}
	}
	return n, plural
}

// versions: the spec.versions list (nil: none).
func (d *crdDraw) versions(sfKind string) []any {
	g := d.g
	n := g.pick(1, 1, 1, 2, 2, 3).(int)
	vk := ""
	if d.bad["versions"] {
		vk = g.str("none", "badName", "dup", "noStorage", "twoStorage")
		if (vk == "dup" || vk == "twoStorage") && n < 2 {
			n = 2
		}
	}
	if sfKind == "oneVersion" && n < 2 {
		n = 2
	}
	if vk == "none" {
		return nil
	}
	pool := []string{"v1", "v1beta1", "v2alpha1", "v2"}
	g.r.Shuffle(len(pool), func(i, j int) { pool[i], pool[j] = pool[j], pool[i] })
	names := append([]string(nil), pool[:n]...)
	switch vk {
	case "badName":
		names[g.r.IntN(n)] = g.str("V1", "1v", "v.1", "v1_beta")
	case "dup":
		names[1] = names[0]
	}
	storage := g.r.IntN(n)
	vs := make([]map[string]any, n)
	for i := range vs {
		vs[i] = map[string]any{"name": names[i], "served": i == storage || g.chance(0.8), "storage": i == storage}
		if i != storage && g.chance(0.2) {
			vs[i]["deprecated"] = true
			if g.chance(0.5) {
				vs[i]["deprecationWarning"] = "example.com/" + names[i] + " Widget is deprecated; use example.com/" + names[storage]
			}
		}
	}
	switch vk {
	case "noStorage":
		vs[storage]["storage"] = false
	case "twoStorage":
		vs[(storage+1)%n]["storage"] = true
	}
	if d.bad["deprecation"] {
		v := vs[g.r.IntN(n)]
		v["deprecated"] = true
		switch g.r.IntN(5) {
		case 0:
			v["deprecationWarning"] = strings.Repeat("deprecated ", 24) // 264 bytes
		case 1:
			v["deprecationWarning"] = ""
		case 2:
			v["deprecationWarning"] = "use v2\u0007 instead"
		case 3:
			v["deprecationWarning"] = "use\u00adv2"
		default:
			delete(v, "deprecated")
			v["deprecationWarning"] = "use v2"
		}
	}
	// Schemas: one base, per version a copy, sometimes changed so that they differ.
	base := d.schema()
	applyAll := g.chance(0.5)
	if d.bad["schema"] && applyAll {
		d.schemaMistake(base)
		if g.chance(0.2) {
			d.schemaMistake(base)
		}
	}
	differ := n > 1 && g.chance(0.4)
	for i, v := range vs {
		s := crdCopy(base).(map[string]any)
		if differ && i > 0 {
			spec := crdProps(s)["spec"].(map[string]any)
			spec["description"] = "the " + names[i] + " spec"
		}
		if d.bad["schema"] && !applyAll && i == 0 {
			d.schemaMistake(s)
			if g.chance(0.2) {
				d.schemaMistake(s)
			}
		}
		v["schema"] = map[string]any{"openAPIV3Schema": s}
	}
	if d.bad["schemaPresence"] {
		switch g.r.IntN(3) {
		case 0:
			for _, v := range vs {
				delete(v, "schema")
			}
		default:
			v := vs[g.r.IntN(n)]
			if g.chance(0.5) {
				delete(v, "schema")
			} else {
				v["schema"] = map[string]any{}
			}
		}
	}
	d.subresources(vs)
	d.columns(vs)
	d.selectableFields(vs, sfKind)
	out := make([]any, n)
	for i, v := range vs {
		out[i] = v
	}
	return out
}

func (d *crdDraw) subresources(vs []map[string]any) {
	g := d.g
	draw := func() map[string]any {
		s := map[string]any{}
		switch g.r.IntN(4) {
		case 0:
			return nil
		case 1:
			s["status"] = map[string]any{}
		case 2:
			s["scale"] = d.scale()
		default:
			s["status"] = map[string]any{}
			s["scale"] = d.scale()
		}
		return s
	}
	if !d.bad["subresources"] && !d.forceStatus && g.chance(0.4) {
		return
	}
	identical := g.chance(0.5)
	first := draw()
	for i, v := range vs {
		s := first
		if i > 0 {
			if identical {
				s = crdCopy(first).(map[string]any)
			} else {
				s = draw()
			}
		}
		if d.forceStatus {
			if s == nil {
				s = map[string]any{}
			}
			s["status"] = map[string]any{}
		}
		if s != nil {
			v["subresources"] = s
		}
	}
	if d.bad["subresources"] {
		v := vs[g.r.IntN(len(vs))]
		s, _ := v["subresources"].(map[string]any)
		if s == nil {
			s = map[string]any{}
			v["subresources"] = s
		}
		sc, _ := s["scale"].(map[string]any)
		if sc == nil {
			sc = d.scale()
			s["scale"] = sc
		}
		switch g.r.IntN(3) {
		case 0:
			sc["specReplicasPath"] = g.str("", "spec.replicas", ".metadata.x", ".status.replicas", ".")
		case 1:
			sc["statusReplicasPath"] = g.str("", "status.replicas", ".spec.replicas", ".metadata.x", ".")
		default:
			sc["labelSelectorPath"] = g.str("", "status.selector", ".metadata.x", ".")
		}
	}
}

func (d *crdDraw) scale() map[string]any {
	s := map[string]any{"specReplicasPath": ".spec.replicas", "statusReplicasPath": ".status.replicas"}
	if d.g.chance(0.5) {
		s["labelSelectorPath"] = d.g.str(".status.selector", ".spec.selector")
	}
	return s
}

func (d *crdDraw) columns(vs []map[string]any) {
	g := d.g
	if !d.bad["columns"] && g.chance(0.6) {
		return
	}
	all := []map[string]any{
		{"name": "Color", "type": "string", "jsonPath": ".spec.color"},
		{"name": "Size", "type": "integer", "format": "int32", "jsonPath": ".spec.size", "priority": 1},
		{"name": "Ratio", "type": "number", "jsonPath": ".spec.ratio", "description": "the ratio"},
		{"name": "Enabled", "type": "boolean", "jsonPath": ".spec.enabled"},
		{"name": "Age", "type": "date", "jsonPath": ".metadata.creationTimestamp"},
		{"name": "Created", "type": "string", "format": "date-time", "jsonPath": ".metadata.creationTimestamp"},
	}
	draw := func() []any {
		out := []any{}
		for _, i := range g.r.Perm(len(all))[:1+g.r.IntN(3)] {
			out = append(out, crdCopy(all[i]))
		}
		return out
	}
	identical := g.chance(0.5)
	first := draw()
	for i, v := range vs {
		c := first
		if i > 0 {
			if identical {
				c = crdCopy(first).([]any)
			} else {
				c = draw()
			}
		}
		v["additionalPrinterColumns"] = c
	}
	if d.bad["columns"] {
		cs := vs[g.r.IntN(len(vs))]["additionalPrinterColumns"].([]any)
		c := cs[g.r.IntN(len(cs))].(map[string]any)
		switch g.r.IntN(4) {
		case 0:
			c["name"] = ""
		case 1:
			c["type"] = g.str("", "int", "String")
		case 2:
			c["format"] = g.str("uuid", "int", "email")
		default:
			c["jsonPath"] = g.str("", "spec.x", ".")
		}
	}
}

func (d *crdDraw) selectableFields(vs []map[string]any, kind string) {
	g := d.g
	if kind == "" {
		return
	}
	sets := [][]string{{".spec.color"}, {".spec.size"}, {".spec.enabled"}, {".spec.color", ".spec.size"},
		{".spec.size", ".spec.enabled"}, {".spec.enabled", ".spec.color"}, {".spec.color", ".spec.size", ".spec.enabled"}}
	list := func(ps []string) []any {
		out := []any{}
		for _, p := range ps {
			out = append(out, map[string]any{"jsonPath": p})
		}
		return out
	}
	// The v1 conversion lifts the selectable fields that are identical in every version to the
	// top level, as it lifts identical schemas, and each is then checked against the schema at
	// its own level: the lists follow the schemas (identical with them, distinct otherwise), but
	// for oneVersion, which is about the mismatch.
	identical := true
	first, _ := json.Marshal(vs[0]["schema"])
	for _, v := range vs[1:] {
		if b, _ := json.Marshal(v["schema"]); string(b) != string(first) {
			identical = false
		}
	}
	if kind == "oneVersion" {
		identical = !identical
	}
	perm := g.r.Perm(len(sets))
	for i, v := range vs {
		if identical {
			v["selectableFields"] = list(sets[perm[0]])
		} else {
			v["selectableFields"] = list(sets[perm[i]])
		}
	}
	if kind == "valid" || kind == "oneVersion" {
		return
	}
	target := g.r.IntN(len(vs))
	s := vs[target]["selectableFields"].([]any)
	at := func(p string) []any {
		return append(s, map[string]any{"jsonPath": p})
	}
	switch kind {
	case "ratio":
		s = at(".spec.ratio")
	case "tags":
		s = at(".spec.tags")
	case "missing":
		s = at(".spec.missing")
	case "metadata":
		s = at(".metadata.name")
	case "nodot":
		s = at("spec.color")
	case "empty":
		s = at("")
	case "dup":
		s = append(s, crdCopy(s[g.r.IntN(len(s))]))
	case "many":
		s = []any{}
		for i := 0; i < 9; i++ {
			s = append(s, map[string]any{"jsonPath": ".spec.f" + string(rune('0'+i))})
		}
		if g.chance(0.3) {
			s = append(s, map[string]any{"jsonPath": ".spec.f0"})
		}
	}
	for i, v := range vs {
		if i == target || identical {
			v["selectableFields"] = crdCopy(s)
		}
	}
}

func (d *crdDraw) conversion() map[string]any {
	g := d.g
	webhook := func() map[string]any {
		cc := map[string]any{}
		if g.chance(0.5) {
			cc["url"] = "https://example.com/convert"
		} else {
			cc["service"] = map[string]any{"name": "widget-conversion", "namespace": "default", "path": "/convert", "port": 443}
			if g.chance(0.3) {
				delete(cc["service"].(map[string]any), "port")
			}
		}
		return map[string]any{"clientConfig": cc, "conversionReviewVersions": []any{"v1"}}
	}
	if !d.bad["conversion"] {
		switch g.r.IntN(10) {
		case 0, 1, 2, 3, 4:
			return nil
		case 5, 6:
			return map[string]any{"strategy": "None"}
		default:
			if d.bad["preserve"] || d.forcePreserve {
				return nil
			}
			w := webhook()
			if g.chance(0.3) {
				w["conversionReviewVersions"] = []any{"v1beta1", "v1"}
			}
			return map[string]any{"strategy": "Webhook", "webhook": w}
		}
	}
	switch g.r.IntN(13) {
	case 0:
		return map[string]any{"strategy": g.str("", "webhook", "none")}
	case 12:
		// Webhook conversion needs pruning (preserveUnknownFields false).
		d.forcePreserve = true
		return map[string]any{"strategy": "Webhook", "webhook": webhook()}
	case 1:
		w := webhook()
		if g.chance(0.5) {
			delete(w, "conversionReviewVersions")
		}
		return map[string]any{"strategy": "None", "webhook": w}
	case 2:
		return map[string]any{"strategy": "Webhook"}
	case 3:
		return map[string]any{"strategy": "Webhook", "webhook": map[string]any{"conversionReviewVersions": []any{"v1"}}}
	case 4, 5:
		w := webhook()
		w["clientConfig"] = map[string]any{"url": g.str("http://example.com/x", "https://example.com/x?q=1", "https://user@example.com/", "https://example.com/#f", "example.com", "https://")}
		return map[string]any{"strategy": "Webhook", "webhook": w}
	case 6, 7, 11:
		w := webhook()
		svc := map[string]any{"name": "widget-conversion", "namespace": "default", "path": "/convert", "port": 443}
		switch g.r.IntN(5) {
		case 0:
			svc[g.str("name", "namespace")] = ""
		case 1:
			svc["name"] = g.str("Bad_Name", "a.b")
			svc["namespace"] = g.str("Bad_NS", "default")
		case 2, 3:
			svc["path"] = g.str("convert", "/a//b", "//", "/Bad_Segment", "/convert/")
		default:
			svc["port"] = g.pick(0, 70000, -1)
		}
		w["clientConfig"] = map[string]any{"service": svc}
		return map[string]any{"strategy": "Webhook", "webhook": w}
	case 8:
		w := webhook()
		if g.chance(0.5) {
			w["clientConfig"] = map[string]any{"url": "https://example.com/convert", "service": map[string]any{"name": "c", "namespace": "default"}}
		} else {
			w["clientConfig"] = map[string]any{}
		}
		return map[string]any{"strategy": "Webhook", "webhook": w}
	default:
		w := webhook()
		switch g.r.IntN(6) {
		case 0:
			delete(w, "conversionReviewVersions")
		case 1:
			w["conversionReviewVersions"] = []any{}
		case 2:
			w["conversionReviewVersions"] = []any{"v2"}
		case 3:
			w["conversionReviewVersions"] = []any{"v1", "v1"}
		case 4:
			w["conversionReviewVersions"] = []any{"V1"}
		default:
			w["conversionReviewVersions"] = []any{"v1", "V1", "v2beta1"}
		}
		return map[string]any{"strategy": "Webhook", "webhook": w}
	}
}

// schema: a valid structural schema for the Widget kind.
func (d *crdDraw) schema() map[string]any {
	g := d.g
	color := map[string]any{"type": "string"}
	if g.chance(0.3) {
		color["enum"] = []any{"red", "green", "blue"}
	}
	if g.chance(0.2) {
		color["default"] = "red"
	}
	if g.chance(0.15) {
		color["maxLength"] = 16
	}
	if g.chance(0.1) {
		color["pattern"] = "^[a-z]+$"
	}
	size := map[string]any{"type": "integer", "minimum": 0}
	if g.chance(0.2) {
		size["default"] = 1
	}
	if g.chance(0.15) {
		size["format"] = "int32"
	}
	if g.chance(0.1) {
		size["maximum"] = 100
	}
	tags := map[string]any{"type": "array", "items": map[string]any{"type": "string"}}
	if g.chance(0.2) {
		tags["x-kubernetes-list-type"] = g.str("atomic", "set")
	}
	if g.chance(0.1) {
		tags["maxItems"] = 10
	}
	props := map[string]any{
		"color": color, "size": size, "enabled": map[string]any{"type": "boolean"},
		"ratio": map[string]any{"type": "number"}, "tags": tags,
	}
	if g.chance(0.2) {
		props["ports"] = crdListMap()
	}
	if g.chance(0.1) {
		props["labels"] = map[string]any{"type": "array", "x-kubernetes-list-type": "set",
			"items": map[string]any{"type": "object", "x-kubernetes-map-type": "atomic", "properties": map[string]any{"key": map[string]any{"type": "string"}}}}
	}
	if g.chance(0.1) {
		p := map[string]any{"x-kubernetes-int-or-string": true}
		if g.chance(0.5) {
			p["anyOf"] = []any{map[string]any{"type": "integer"}, map[string]any{"type": "string"}}
		}
		props["port"] = p
	}
	if g.chance(0.1) {
		t := map[string]any{"type": "object", "x-kubernetes-embedded-resource": true}
		if g.chance(0.5) {
			t["x-kubernetes-preserve-unknown-fields"] = true
		} else {
			t["properties"] = map[string]any{"apiVersion": map[string]any{"type": "string"}, "kind": map[string]any{"type": "string"},
				"metadata": map[string]any{"type": "object"}, "spec": map[string]any{"type": "object", "x-kubernetes-preserve-unknown-fields": true}}
		}
		props["template"] = t
	}
	if g.chance(0.1) {
		// value validations in allOf/anyOf/oneOf/not
		switch g.r.IntN(4) {
		case 0:
			color["anyOf"] = []any{map[string]any{"maxLength": 10}, map[string]any{"pattern": "^r"}}
		case 1:
			size["allOf"] = []any{map[string]any{"minimum": 0}, map[string]any{"maximum": 1000}}
		case 2:
			size["not"] = map[string]any{"maximum": -1}
		default:
			color["oneOf"] = []any{map[string]any{"enum": []any{"red"}}, map[string]any{"minLength": 4}}
		}
	}
	if d.needF {
		for i := 0; i < 9; i++ {
			props["f"+string(rune('0'+i))] = map[string]any{"type": "string"}
		}
	}
	spec := map[string]any{"type": "object", "properties": props}
	if g.chance(0.15) {
		spec["required"] = []any{"color"}
	}
	metadata := map[string]any{"type": "object"}
	if g.chance(0.25) || d.sfKind == "metadata" && g.chance(0.6) {
		mp := map[string]any{"name": map[string]any{"type": "string", "maxLength": 63}}
		if g.chance(0.5) {
			mp["generateName"] = map[string]any{"type": "string"}
		}
		metadata["properties"] = mp
	}
	root := map[string]any{"type": "object", "properties": map[string]any{
		"spec": spec, "status": map[string]any{"type": "object", "x-kubernetes-preserve-unknown-fields": true}}}
	if g.chance(0.8) {
		rp := crdProps(root)
		rp["apiVersion"] = map[string]any{"type": "string"}
		rp["kind"] = map[string]any{"type": "string"}
		rp["metadata"] = metadata
	}
	if g.chance(0.2) {
		root["description"] = "Widget is an example resource."
	}
	if g.chance(0.15) {
		r := d.rule(g.chance(0.5))
		if g.chance(0.5) {
			spec["x-kubernetes-validations"] = []any{r}
		} else {
			if fp, ok := r["fieldPath"].(string); ok {
				r["fieldPath"] = ".spec" + fp
			}
			root["x-kubernetes-validations"] = []any{r}
		}
	}
	if g.chance(0.05) {
		// a string rule's cost grows with the string's length: bounded, or cel-go refuses it
		color["maxLength"] = 16
		color["x-kubernetes-validations"] = []any{map[string]any{"rule": "self == self", "message": "must equal itself"}}
	}
	return root
}

func crdListMap() map[string]any {
	return map[string]any{"type": "array", "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": []any{"name"},
		"items": map[string]any{"type": "object", "required": []any{"name"}, "properties": map[string]any{
			"name": map[string]any{"type": "string"}, "port": map[string]any{"type": "integer"}}}}
}

// rule: an x-kubernetes-validations rule that compiles at every minor and needs no field type;
// fieldPath (when objectLevel) relative to spec.
func (d *crdDraw) rule(objectLevel bool) map[string]any {
	g := d.g
	r := map[string]any{"rule": g.str("true", "1 == 1", "self == self")}
	if g.chance(0.5) {
		r["message"] = "widget is invalid"
	}
	if g.chance(0.2) {
		r["messageExpression"] = "'widget is invalid'"
	}
	if g.chance(0.2) {
		r["reason"] = g.str("FieldValueInvalid", "FieldValueForbidden", "FieldValueRequired", "FieldValueDuplicate")
	}
	if objectLevel && g.chance(0.3) {
		r["fieldPath"] = ".color"
	}
	return r
}

// schemaMistake: one of the mistakes the schema checks catch, in root.
func (d *crdDraw) schemaMistake(root map[string]any) {
	g := d.g
	rp := crdProps(root)
	spec := rp["spec"].(map[string]any)
	sp := crdProps(spec)
	color := sp["color"].(map[string]any)
	size := sp["size"].(map[string]any)
	tags := sp["tags"].(map[string]any)
	metadata, _ := rp["metadata"].(map[string]any)
	if metadata == nil {
		metadata = map[string]any{"type": "object"}
		rp["metadata"] = metadata
	}
	nested := func(target map[string]any, member map[string]any) {
		switch key := g.str("allOf", "anyOf", "oneOf", "not"); key {
		case "not":
			target["not"] = member
		default:
			target[key] = []any{map[string]any{"minLength": 1}, member}
		}
	}
	switch g.r.IntN(40) {
	case 0:
		root["type"] = "array"
	case 1:
		delete(root, "type")
	case 2:
		root["nullable"] = true
	case 3, 4, 35:
		d.forceStatus = true
		switch g.r.IntN(5) {
		case 0:
			root["additionalProperties"] = map[string]any{"type": "string"}
		case 1:
			root["nullable"] = true
		case 2:
			root["enum"] = []any{map[string]any{}}
		case 3:
			root["x-kubernetes-embedded-resource"] = true
		default:
			root["default"] = map[string]any{}
		}
	case 5:
		tags["uniqueItems"] = true
	case 6:
		spec["additionalProperties"] = map[string]any{"type": "string"}
	case 7:
		spec["x-kubernetes-preserve-unknown-fields"] = false
	case 8:
		delete(g.pick(color, size, sp["enabled"]).(map[string]any), "type")
	case 9:
		delete(tags, "items")
	case 10:
		tags["items"] = []any{map[string]any{"type": "string"}}
	case 11:
		size["type"] = g.str("null", "null", "foo", "int")
	case 12, 13, 34:
		target := g.pick(spec, color, tags).(map[string]any)
		switch g.r.IntN(6) {
		case 0:
			target["id"] = "widget"
		case 1:
			target["$ref"] = "#/definitions/a"
		case 2:
			target["patternProperties"] = map[string]any{"^x": map[string]any{"type": "string"}}
		case 3:
			target["definitions"] = map[string]any{"a": map[string]any{"type": "string"}}
		case 4:
			target["dependencies"] = map[string]any{"color": []any{"size"}}
		default:
			target["additionalItems"] = false
		}
	case 14:
		if g.chance(0.5) {
			g.pick(color, tags).(map[string]any)["x-kubernetes-map-type"] = "atomic"
		} else {
			spec["x-kubernetes-map-type"] = g.str("foo", "Atomic")
		}
	case 15:
		if g.chance(0.5) {
			g.pick(color, spec).(map[string]any)["x-kubernetes-list-type"] = g.str("atomic", "set", "map")
		} else {
			tags["x-kubernetes-list-type"] = g.str("map", "foo")
		}
	case 16, 17, 18:
		lm := crdListMap()
		items := lm["items"].(map[string]any)
		ip := items["properties"].(map[string]any)
		switch g.r.IntN(7) {
		case 0:
			delete(lm, "x-kubernetes-list-map-keys")
		case 1:
			lm["x-kubernetes-list-map-keys"] = []any{g.str("nope", "Name")}
		case 2:
			lm["x-kubernetes-list-map-keys"] = []any{"name", "name"}
		case 3:
			ip["meta"] = map[string]any{"type": "object", "x-kubernetes-preserve-unknown-fields": true}
			items["required"] = []any{"name", "meta"}
			lm["x-kubernetes-list-map-keys"] = []any{"name", "meta"}
		case 4:
			delete(items, "required")
		case 5:
			ip["name"].(map[string]any)["nullable"] = true
		default:
			items["nullable"] = true
		}
		sp["ports"] = lm
	case 19:
		items := map[string]any{"type": "object", "properties": map[string]any{"key": map[string]any{"type": "string"}}}
		if g.chance(0.3) {
			items["x-kubernetes-map-type"] = "granular"
		}
		sp["labels"] = map[string]any{"type": "array", "x-kubernetes-list-type": "set", "items": items}
	case 20:
		tags["x-kubernetes-list-map-keys"] = []any{"name"}
		if g.chance(0.5) {
			tags["x-kubernetes-list-type"] = g.str("set", "atomic")
		}
	case 21:
		p := map[string]any{"x-kubernetes-int-or-string": true}
		if g.chance(0.5) {
			p["x-kubernetes-preserve-unknown-fields"] = true
		} else {
			p["x-kubernetes-embedded-resource"] = true
		}
		sp["port"] = p
	case 22, 23:
		t := map[string]any{"type": "object", "x-kubernetes-embedded-resource": true, "x-kubernetes-preserve-unknown-fields": true}
		switch g.r.IntN(4) {
		case 0:
			delete(t, "type")
		case 1:
			t["type"] = "string"
		case 2:
			delete(t, "x-kubernetes-preserve-unknown-fields")
		default:
			metadata["properties"] = map[string]any{"x": t}
			return
		}
		sp["template"] = t
	case 24:
		if g.chance(0.5) {
			metadata["default"] = map[string]any{}
		} else {
			metadata["properties"] = map[string]any{"name": map[string]any{"type": "string", "default": "w"}}
		}
	case 25:
		color["default"] = "red"
		d.forcePreserve = true
	case 26:
		color["pattern"] = g.str("[", "a(b", "x**")
	case 27, 28, 29, 30:
		var m map[string]any
		switch g.r.IntN(14) {
		case 0:
			m = map[string]any{"type": "string"}
		case 1:
			m = map[string]any{"default": "x"}
		case 2:
			m = map[string]any{"nullable": true}
		case 3:
			m = map[string]any{"description": "d"}
		case 4:
			m = map[string]any{"title": "t"}
		case 5:
			m = map[string]any{"x-kubernetes-preserve-unknown-fields": true}
		case 6:
			m = map[string]any{"x-kubernetes-embedded-resource": true}
		case 7:
			m = map[string]any{"x-kubernetes-int-or-string": true}
		case 8:
			m = map[string]any{g.str("x-kubernetes-list-type", "x-kubernetes-map-type"): "atomic"}
		case 9:
			m = map[string]any{"x-kubernetes-list-map-keys": []any{"name"}}
		case 10:
			m = map[string]any{"x-kubernetes-validations": []any{map[string]any{"rule": "true"}}}
		case 11:
			nested(spec, map[string]any{"additionalProperties": map[string]any{"minLength": 1}})
			return
		default:
			nested(g.pick(spec, root).(map[string]any), map[string]any{"properties": map[string]any{"metadata": map[string]any{"minProperties": 1}}})
			return
		}
		nested(color, m)
	case 31, 32:
		// Completeness is checked for the root's value validations only.
		switch g.r.IntN(4) {
		case 0:
			nested(root, map[string]any{"properties": map[string]any{"nothere": map[string]any{"minLength": 1}}})
		case 1:
			nested(root, map[string]any{"properties": map[string]any{"spec": map[string]any{"properties": map[string]any{"nothere": map[string]any{"minLength": 1}}}}})
		case 2:
			nested(root, map[string]any{"properties": map[string]any{"spec": map[string]any{"properties": map[string]any{"color": map[string]any{"items": map[string]any{"minLength": 1}}}}}})
		default:
			nested(root, map[string]any{"properties": map[string]any{"spec": map[string]any{"properties": map[string]any{"color": map[string]any{"minLength": 1}}}}})
		}
	case 33:
		if g.chance(0.5) {
			size["default"] = g.pick("one", true, 1.5)
		} else {
			size["default"] = -1
		}
	default:
		d.ruleMistake(root, spec, color)
	}
}

// ruleMistake: an x-kubernetes-validations rule that its static checks refuse, on spec, the root
// or (for the mistakes that are not its fieldPath) the color string.
func (d *crdDraw) ruleMistake(root, spec, color map[string]any) {
	g := d.g
	where := g.str("spec", "spec", "spec", "root", "root", "color")
	r := d.rule(where != "color")
	k := g.r.IntN(12)
	if where == "color" && k >= 6 && k <= 8 {
		where = "spec"
	}
	switch k {
	case 0:
		r["rule"] = g.str("", "  ")
	case 1:
		r["message"] = "  "
	case 2:
		r["message"] = g.str("line\nbreak", "line\rbreak")
	case 3:
		r["rule"] = "self == self &&\n1 == 1"
		delete(r, "message")
	case 4:
		r["messageExpression"] = g.str("  ", " ")
	case 5:
		r["reason"] = g.str("Forbidden", "Invalid", "Required", "Duplicate", "Bad")
	case 6:
		r["fieldPath"] = g.str("  ", " ")
	case 7:
		r["fieldPath"] = g.str(".color\n", ".color\r")
	case 8:
		r["fieldPath"] = g.str(".nothere", "color", ".color.x")
	case 9, 10:
		r["optionalOldSelf"] = g.chance(0.7)
	default:
		if where != "color" {
			r["fieldPath"] = ".color"
		}
	}
	target := spec
	switch where {
	case "root":
		target = root
		if fp, ok := r["fieldPath"].(string); ok && strings.HasPrefix(fp, ".") {
			r["fieldPath"] = ".spec" + fp
		}
	case "color":
		target = color
		color["maxLength"] = 16 // keeps the rule's estimated cost low
	}
	rules, _ := target["x-kubernetes-validations"].([]any)
	target["x-kubernetes-validations"] = append(rules, r)
}
