// Command k8sfacts prints, as JSON, what the linked Kubernetes release knows that restartkit
// generates its per-minor tables from (tools/gen_k8s_versions.py): every feature gate the
// release's kube-apiserver, kube-controller-manager and kubelet register, with its default, lock
// and pre-release stage at that release, and the gates each depends on (from 1.35, where a
// component refuses to start with a gate on whose dependencies are off). Built per minor with the
// oracle's modfiles (versions/go.1.<minor>.mod).
package main

import (
	"encoding/json"
	"fmt"
	"os"
	"runtime/debug"
	"sort"

	utilfeature "k8s.io/apiserver/pkg/util/feature"
	logsapi "k8s.io/component-base/logs/api/v1"
	metricsfeatures "k8s.io/component-base/metrics/features"
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
	b, err := json.MarshalIndent(map[string]any{"kubernetes": version, "gates": out}, "", " ")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	os.Stdout.Write(append(b, '\n'))
}
