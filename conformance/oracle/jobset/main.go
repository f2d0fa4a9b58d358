// Command jobset-upstream: sigs.k8s.io/jobset's own code, at the version in this module's go.mod
// and at that release's own dependency pins, for the differential oracle in the parent directory.
//
// It lives in a module of its own because a JobSet controller is a binary of its own: the
// jobset release is built on its Kubernetes client libraries and controller-runtime whatever
// minor the cluster runs, and those cannot share a build with the oracle's Kubernetes of every
// supported minor (controller-runtime v0.24 needs client-go v0.36 or later). The oracle keeps it
// running and talks to it in JSON lines on its standard input and output:
//
//	{"op": "version"}                                 -> {"version": "v0.12.0"}
//	{"op": "validate", "input": {object, featureGates}} -> {"expect": ...} or {"skip": "..."}
//	{"op": "failurePolicy", "input": {jobset, failedJobs, featureGates}} -> {"expect": ...}
//	{"op": "admit", "object": JobSet, "featureGates"} -> {"object": JobSet} or {"skip": "..."}
//	{"op": "reconcile", ...}                          -> see reconcile.go
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"runtime/debug"

	"github.com/go-logr/logr"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	"k8s.io/component-base/featuregate"
	ctrlruntime "sigs.k8s.io/controller-runtime"
	_ "sigs.k8s.io/jobset/pkg/features" // registers RestartJob and InPlaceRestart
)

// request is one line of standard input.
type request struct {
	Op           string          `json:"op"`
	Input        json.RawMessage `json:"input"`
	Object       json.RawMessage `json:"object"`
	FeatureGates map[string]bool `json:"featureGates"`
}

func module() string {
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, d := range bi.Deps {
			if d.Path == "sigs.k8s.io/jobset" {
				return d.Version
			}
		}
	}
	return "unknown"
}

// jobsetGates are the gates of sigs.k8s.io/jobset's features package; a request that leaves one
// out gets the release's default, so nothing leaks from one request into the next.
var jobsetGates = []string{"RestartJob", "InPlaceRestart"}

var gateDefaults = func() map[string]bool {
	m := map[string]bool{}
	for _, g := range jobsetGates {
		m[g] = utilfeature.DefaultFeatureGate.Enabled(featuregate.Feature(g))
	}
	return m
}()

// setGates applies a request's gates (Kubernetes' own, which the jobset code does not read,
// are not known to this binary and are left out, as the jobset controller does not take them).
func setGates(g map[string]bool) error {
	m := map[string]bool{}
	for k, v := range gateDefaults {
		m[k] = v
	}
	for k, v := range g {
		if _, ok := gateDefaults[k]; ok {
			m[k] = v
		}
	}
	return utilfeature.DefaultMutableFeatureGate.SetFromMap(m)
}

// out is standard output; reconcile.go writes its calls back to the oracle through it too.
var out = bufio.NewWriter(os.Stdout)

func reply(v any) {
	b, err := json.Marshal(v)
	if err != nil {
		b, _ = json.Marshal(map[string]any{"skip": "encoding the answer: " + err.Error()})
	}
	out.Write(append(b, '\n'))
	out.Flush()
}

var in = func() *bufio.Scanner {
	sc := bufio.NewScanner(os.Stdin)
	sc.Buffer(make([]byte, 1<<20), 256<<20)
	return sc
}()

func main() {
	ctrlruntime.SetLogger(logr.Discard()) // the controller logs through it; unset, it complains once
	for in.Scan() {
		var r request
		if err := json.Unmarshal(in.Bytes(), &r); err != nil {
			reply(map[string]any{"skip": "request: " + err.Error()})
			continue
		}
		reply(answer(r))
	}
}

// answer handles one request; a panic in upstream's code becomes a skip, as the oracle counts it.
func answer(r request) (a any) {
	defer func() {
		if p := recover(); p != nil {
			a = map[string]any{"skip": fmt.Sprintf("upstream panicked: %v", p)}
		}
	}()
	var err error
	switch r.Op {
	case "version":
		return map[string]any{"version": module()}
	case "validate":
		a, err = validate(r.Input)
	case "failurePolicy":
		a, err = failurePolicy(r.Input)
	case "admit":
		a, err = admit(r.Object, r.FeatureGates)
	case "reconcile":
		a, err = reconcile(r.Input)
	default:
		err = fmt.Errorf("unknown op %q", r.Op)
	}
	if err != nil {
		return map[string]any{"skip": err.Error()}
	}
	return a
}
