package main

// The OpenKruise leg: ContainerRecreateRequest admission. OpenKruise pins Kubernetes v1.30 and
// controller-runtime v0.18, which cannot share this module's build, so upstream's answers come
// from a helper built from the module in kruise/ (its own go.mod), kept running and asked one
// JSON line per case.

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os/exec"
	"strings"
)

var flagKruise = flag.String("kruise", "", "the kruise-upstream helper (built from conformance/oracle/kruise); without it the crrValidate leg is skipped")

var kruise *helper

func startKruise() (*helper, error) {
	if kruise != nil {
		return kruise, nil
	}
	if *flagKruise == "" {
		return nil, errors.New("no -kruise helper given")
	}
	v, err := exec.Command(*flagKruise, "-version").Output()
	if err != nil {
		return nil, fmt.Errorf("kruise helper: %v", err)
	}
	h, err := startHelper(*flagKruise)
	if err != nil {
		return nil, fmt.Errorf("kruise helper: %v", err)
	}
	h.version = strings.TrimSpace(string(v))
	kruise = h
	return kruise, nil
}

func kruiseModule() string {
	if k, err := startKruise(); err == nil {
		return "github.com/openkruise/kruise " + k.version
	}
	return "github.com/openkruise/kruise (helper missing)"
}

// upstreamCRR: the helper takes the crrValidate input as its request line.
func upstreamCRR(raw []byte) (map[string]any, error) {
	k, err := startKruise()
	if err != nil {
		return nil, err
	}
	var a struct {
		Expect map[string]any `json:"expect"`
		Skip   string         `json:"skip"`
	}
	if err := k.call(json.RawMessage(raw), &a); err != nil {
		return nil, err
	}
	if a.Skip != "" {
		return nil, errors.New("kruise: " + a.Skip)
	}
	return a.Expect, nil
}

// crr: ContainerRecreateRequests (v1alpha1, CREATE) near the webhook's checks, with the Pod they
// name: podName empty or unknown; containers none, repeated, unknown, without status or
// containerID, with read-only fields set; deadlines and grace periods around their limits;
// failure policies valid and not; Pods running, pending, finished, with preStop hooks and ports.
func (g gen) crr() map[string]any {
	// Names are not repeated: v1.8.0 never refuses a repeated name (its loop checks a set it
	// never fills); the commit restartkit models does (restartNames.Insert, line 314 of
	// crr_mutating_handler.go at 07169cfa), so the two versions differ there.
	containers := []any{}
	names := []string{"app", "sidecar"}
	if g.chance(0.3) {
		names = append(names, g.pick("ghost", "nostatus", "noid").(string))
	}
	g.r.Shuffle(len(names), func(i, j int) { names[i], names[j] = names[j], names[i] })
	n := 1 + g.r.IntN(len(names))
	if g.chance(0.05) {
		n = 0
	}
	for i := 0; i < n; i++ {
		c := map[string]any{"name": names[i]}
		if g.chance(0.05) {
			c["ports"] = []any{map[string]any{"containerPort": 80}}
		}
		containers = append(containers, c)
	}
	spec := map[string]any{"podName": "pod-0", "containers": containers}
	if g.chance(0.08) {
		spec["podName"] = g.pick("missing", "").(string)
	}
	strategy := map[string]any{}
	if g.chance(0.3) {
		strategy["failurePolicy"] = g.pick("Fail", "Ignore", "Fail", "Ignore", "Sometimes").(string)
	}
	if g.chance(0.3) {
		strategy["terminationGracePeriodSeconds"] = g.pick(-1, 0, 30, 30).(int)
	}
	if g.chance(0.2) {
		strategy["unreadyGracePeriodSeconds"] = g.pick(-1, 0, 5, 5).(int)
	}
	if g.chance(0.2) {
		strategy["orderedRecreate"] = g.chance(0.5)
	}
	if g.chance(0.2) {
		strategy["minStartedSeconds"] = g.pick(0, 10).(int)
	}
	if len(strategy) > 0 {
		spec["strategy"] = strategy
	}
	if g.chance(0.3) {
		spec["activeDeadlineSeconds"] = g.pick(2, 3, 300, 300).(int)
	}
	if g.chance(0.2) {
		spec["ttlSecondsAfterFinished"] = g.pick(0, 60).(int)
	}
	crr := map[string]any{
		"apiVersion": "apps.kruise.io/v1alpha1", "kind": "ContainerRecreateRequest",
		"metadata": map[string]any{"name": "crr-0", "namespace": "default"},
		"spec":     spec,
	}
	if g.chance(0.2) {
		crr["metadata"].(map[string]any)["labels"] = map[string]any{"team": "a"}
	}
	app := map[string]any{"name": "app", "image": "nginx"}
	if g.chance(0.3) {
		app["lifecycle"] = map[string]any{"preStop": map[string]any{"exec": map[string]any{"command": []any{"sleep", "5"}}}}
	}
	if g.chance(0.2) {
		app["lifecycle"] = map[string]any{"preStop": map[string]any{"httpGet": map[string]any{"path": "/stop", "port": 8080}}}
		app["ports"] = []any{map[string]any{"containerPort": 8080, "protocol": "TCP"}}
	}
	podSpec := map[string]any{"containers": []any{app,
		map[string]any{"name": "sidecar", "image": "envoy"},
		map[string]any{"name": "nostatus", "image": "busybox"},
		map[string]any{"name": "noid", "image": "busybox"}}}
	if g.chance(0.92) {
		podSpec["nodeName"] = "node-1"
	}
	if g.chance(0.3) {
		podSpec["terminationGracePeriodSeconds"] = g.pick(0, 45).(int)
	}
	status := func(name, id string, restarts int) map[string]any {
		return map[string]any{"name": name, "ready": true, "restartCount": restarts, "image": "x", "imageID": "", "containerID": id,
			"state": map[string]any{"running": map[string]any{"startedAt": "2026-07-01T00:00:00Z"}}}
	}
	pod := map[string]any{
		"apiVersion": "v1", "kind": "Pod",
		"metadata": map[string]any{"name": "pod-0", "namespace": "default", "uid": "uid-pod-0"},
		"spec":     podSpec,
		"status": map[string]any{
			"phase":             g.pick("Running", "Running", "Running", "Running", "Running", "Pending", "Succeeded", "Failed").(string),
			"containerStatuses": []any{status("app", "containerd://app", g.r.IntN(3)), status("sidecar", "containerd://sidecar", 0), status("noid", "", 0)},
		},
	}
	// The commit restartkit models (07169cfa, after v1.9.0) also reads the Pod's Node, which
	// v1.8.0 does not: the Node is always there, so that both read the same world.
	node := map[string]any{"apiVersion": "v1", "kind": "Node", "metadata": map[string]any{"name": "node-1"}}
	return map[string]any{"object": crr, "pod": pod, "node": node, "featureGates": map[string]any{"KruiseDaemon": g.chance(0.95)}}
}
