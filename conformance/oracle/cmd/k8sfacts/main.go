// Command k8sfacts prints, as JSON, what the linked Kubernetes release knows that restartkit
// generates its per-minor tables from (tools/gen_k8s_versions.py): every feature gate the
// release's kube-apiserver, kube-controller-manager and kubelet register, with its default, lock
// and pre-release stage at that release, and the gates each depends on (from 1.35, where a
// component refuses to start with a gate on whose dependencies are off); and the fields of the
// kubelet's configuration file (KubeletConfiguration, k8s.io/kubelet/config/v1beta1), which the
// published OpenAPI does not describe, read from its Go type as encoding/json reads it. Built per
// minor with the oracle's modfiles (versions/go.1.<minor>.mod).
package main

import (
	"encoding/json"
	"fmt"
	"os"
	"reflect"
	"runtime/debug"
	"sort"
	"strings"

	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	logsapi "k8s.io/component-base/logs/api/v1"
	metricsfeatures "k8s.io/component-base/metrics/features"
	kubeletconfigv1beta1 "k8s.io/kubelet/config/v1beta1"
	_ "k8s.io/kubernetes/pkg/features" // registers Kubernetes', the apiserver's and client-go's gates
)

type gate struct {
	Name          string   `json:"name"`
	Default       bool     `json:"default"`
	LockToDefault bool     `json:"lockToDefault"`
	Stage         string   `json:"stage"` // ALPHA, BETA, GA, DEPRECATED
	DependsOn     []string `json:"dependsOn,omitempty"`
}

func main() {
	// What the components' main packages add on top of pkg/features: logging (all three), and
	// the metrics gates (kube-controller-manager; cmd/kube-controller-manager/app).
	_ = logsapi.AddFeatureGates(utilfeature.DefaultMutableFeatureGate)
	_ = metricsfeatures.AddFeatureGates(utilfeature.DefaultMutableFeatureGate)
	deps := dependencies()
	var out []gate
	for name, spec := range utilfeature.DefaultMutableFeatureGate.GetAll() {
		stage := string(spec.PreRelease)
		if stage == "" {
			stage = "GA"
		}
		g := gate{Name: string(name), Default: spec.Default, LockToDefault: spec.LockToDefault, Stage: stage}
		for _, d := range deps[string(name)] {
			g.DependsOn = append(g.DependsOn, d)
		}
		sort.Strings(g.DependsOn)
		out = append(out, g)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	version := "unknown"
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, d := range bi.Deps {
			if d.Path == "k8s.io/kubernetes" {
				version = d.Version
			}
		}
	}
	types := map[string]map[string]any{}
	describeType(reflect.TypeOf(kubeletconfigv1beta1.KubeletConfiguration{}), types)
	goTypes, customs := goTypeNames()
	sort.Strings(customs)
	b, err := json.MarshalIndent(map[string]any{"kubernetes": version, "gates": out, "kubeletTypes": types,
		"goTypes": goTypes, "goCustomDecoders": customs}, "", " ")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	os.Stdout.Write(append(b, '\n'))
}

// describeType records the JSON fields of a struct type and of the struct types it reaches, in
// the shapes tools/gen_k8s_versions.py reads from OpenAPI: ["scalar", kind], ["object", name],
// ["list", shape], ["map", shape].
func describeType(t reflect.Type, types map[string]map[string]any) {
	if _, done := types[t.Name()]; done {
		return
	}
	fields := map[string]any{}
	types[t.Name()] = fields
	addFields(t, fields, types)
}

func addFields(t reflect.Type, fields map[string]any, types map[string]map[string]any) {
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		name, _, _ := strings.Cut(tag, ",")
		if name == "-" || (!f.IsExported() && !f.Anonymous) {
			continue
		}
		if f.Anonymous && name == "" {
			ft := f.Type
			if ft.Kind() == reflect.Pointer {
				ft = ft.Elem()
			}
			addFields(ft, fields, types) // inlined, as encoding/json inlines embedded structs
			continue
		}
		if name == "" {
			name = f.Name
		}
		fields[name] = shape(f.Type, types)
	}
}

func shape(t reflect.Type, types map[string]map[string]any) []any {
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t {
	case reflect.TypeOf(metav1.Duration{}):
		return []any{"scalar", "String"}
	case reflect.TypeOf(metav1.Time{}):
		return []any{"scalar", "Time"}
	case reflect.TypeOf(resource.Quantity{}):
		return []any{"scalar", "Quantity"}
	}
	switch t.Kind() {
	case reflect.String:
		return []any{"scalar", "String"}
	case reflect.Bool:
		return []any{"scalar", "Boolean"}
	case reflect.Int32, reflect.Uint32, reflect.Int16, reflect.Uint16, reflect.Int8, reflect.Uint8:
		return []any{"scalar", "Int32"}
	case reflect.Int, reflect.Int64, reflect.Uint, reflect.Uint64:
		return []any{"scalar", "Int64"}
	case reflect.Float32, reflect.Float64:
		return []any{"scalar", "Number"}
	case reflect.Slice, reflect.Array:
		if t.Elem().Kind() == reflect.Uint8 {
			return []any{"scalar", "Bytes"}
		}
		return []any{"list", shape(t.Elem(), types)}
	case reflect.Map:
		return []any{"map", shape(t.Elem(), types)}
	case reflect.Struct:
		if _, custom := reflect.PointerTo(t).MethodByName("UnmarshalJSON"); custom {
			return []any{"scalar", "Any"}
		}
		describeType(t, types)
		return []any{"object", t.Name()}
	case reflect.Interface:
		return []any{"scalar", "Any"}
	}
	panic(fmt.Sprintf("unhandled Go type %v", t))
}
