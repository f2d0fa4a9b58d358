package main

import (
	"reflect"
	"strings"

	crdscheme "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset/scheme"
	"k8s.io/apimachinery/pkg/runtime"
	clientscheme "k8s.io/client-go/kubernetes/scheme"
)

// goTypeNames gives, for every struct type the built-in kinds' external (versioned) Go types
// reach, keyed by its OpenAPI definition name, each JSON field's Go type as encoding/json names
// it in a decoding error ("json: cannot unmarshal string into Go struct field DeploymentSpec.
// spec.replicas of type int32"): the field's type with pointers taken off, then its element's
// for a slice or a map, and so on inwards. The published OpenAPI says `string` where Go has
// v1.PullPolicy, and nothing of ResourceList: restartkit's messages need the Go names.
// Also: the struct types that decode themselves (UnmarshalJSON), by definition name.
//
// A field promoted from an embedded struct (`json:",inline"`) gets that struct's Go field name
// (and its parents') as a first level "embedded:<names>": Go 1.24's encoding/json puts them in
// the error's field path (spec.PersistentVolumeSource.gcePersistentDisk).
func goTypeNames() (map[string]map[string][]string, []string) {
	types := map[string]map[string][]string{}
	custom := map[string]bool{}
	// The API server's own kinds, and those of the apiextensions server it embeds
	// (CustomResourceDefinition). The aggregator's APIService is left out: the oracle's modules
	// do not link k8s.io/kube-aggregator.
	for _, s := range []*runtime.Scheme{clientscheme.Scheme, crdscheme.Scheme} {
		for _, t := range s.AllKnownTypes() {
			walkGoType(t, types, custom)
		}
	}
	var customs []string
	for c := range custom {
		customs = append(customs, c)
	}
	return types, customs
}

// definitionName: the OpenAPI definition name of a Go type, as kube-openapi derives it from the
// package path (k8s.io/api/core/v1.Pod -> io.k8s.api.core.v1.Pod).
func definitionName(t reflect.Type) string {
	pkg := t.PkgPath()
	host, rest, _ := strings.Cut(pkg, "/")
	parts := strings.Split(host, ".")
	for i, j := 0, len(parts)-1; i < j; i, j = i+1, j-1 {
		parts[i], parts[j] = parts[j], parts[i]
	}
	return strings.Join(parts, ".") + "." + strings.ReplaceAll(rest, "/", ".") + "." + t.Name()
}

func deref(t reflect.Type) reflect.Type {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return t
}

func walkGoType(t reflect.Type, types map[string]map[string][]string, custom map[string]bool) {
	t = deref(t)
	switch t.Kind() {
	case reflect.Slice, reflect.Array, reflect.Map:
		walkGoType(t.Elem(), types, custom)
		return
	case reflect.Struct:
	default:
		return
	}
	name := definitionName(t)
	if _, done := types[name]; done || custom[name] {
		return
	}
	if _, ok := reflect.PointerTo(t).MethodByName("UnmarshalJSON"); ok {
		custom[name] = true
		return
	}
	fields := map[string][]string{}
	types[name] = fields
	goFields(t, "", fields, types, custom)
}

func goFields(t reflect.Type, embedded string, fields map[string][]string, types map[string]map[string][]string, custom map[string]bool) {
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "-" || (!f.IsExported() && !f.Anonymous) {
			continue
		}
		if f.Anonymous && name == "" {
			// Promoted, as encoding/json does; TypeMeta's apiVersion and kind are read before.
			inner := f.Name
			if embedded != "" {
				inner = embedded + "." + f.Name
			}
			goFields(deref(f.Type), inner, fields, types, custom)
			continue
		}
		if name == "" {
			name = f.Name
		}
		var levels []string
		if embedded != "" && embedded != "TypeMeta" {
			levels = append(levels, "embedded:"+embedded)
		}
		for ft := deref(f.Type); ; {
			levels = append(levels, ft.String())
			if (ft.Kind() == reflect.Slice && ft.Elem().Kind() != reflect.Uint8) || ft.Kind() == reflect.Map {
				ft = deref(ft.Elem())
				continue
			}
			break
		}
		fields[name] = levels
		walkGoType(f.Type, types, custom)
	}
}
