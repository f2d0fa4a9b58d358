package main

// The Job controller's pod-failure backoff helpers (pkg/controller/job/backoff_utils.go and
// indexed_job_utils.go), against restartkit's `backoff` op with component job-controller:
// getRemainingTimeForFailuresCount (through backoffRecord.getRemainingTime's inputs),
// getRemainingTimePerIndex and getFinishedTime. The helpers are unexported; like
// matchPodFailurePolicy they are pulled by name, with a fake clock standing for the controller's.

import (
	"encoding/json"
	"fmt"
	"math"
	"time"
	_ "unsafe" // go:linkname

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	"k8s.io/client-go/util/flowcontrol"
	"k8s.io/klog/v2"
	kubeletconfigv1beta1 "k8s.io/kubelet/config/v1beta1"
	kubeletconfiginternal "k8s.io/kubernetes/pkg/kubelet/apis/config"
	kubeletconfigscheme "k8s.io/kubernetes/pkg/kubelet/apis/config/scheme"
	kubeletconfigvalidation "k8s.io/kubernetes/pkg/kubelet/apis/config/validation"
	"k8s.io/utils/clock"
	clocktesting "k8s.io/utils/clock/testing"
)

//go:linkname getRemainingTimeForFailuresCount k8s.io/kubernetes/pkg/controller/job.getRemainingTimeForFailuresCount
func getRemainingTimeForFailuresCount(clock clock.WithTicker, defaultBackoff time.Duration, maxBackoff time.Duration, failuresCount int32, lastFailureTime *time.Time) time.Duration

//go:linkname getRemainingTimePerIndex k8s.io/kubernetes/pkg/controller/job.getRemainingTimePerIndex
func getRemainingTimePerIndex(logger klog.Logger, clock clock.WithTicker, defaultBackoff time.Duration, maxBackoff time.Duration, lastFailedPod *corev1.Pod) time.Duration

//go:linkname getIndexAbsoluteFailureCount k8s.io/kubernetes/pkg/controller/job.getIndexAbsoluteFailureCount
func getIndexAbsoluteFailureCount(logger klog.Logger, pod *corev1.Pod) int32

//go:linkname getFinishedTime k8s.io/kubernetes/pkg/controller/job.getFinishedTime
func getFinishedTime(p *corev1.Pod) time.Time

// The vectors give durations in seconds; restartkit writes nanoseconds ÷ 1e9, so the expected
// value is formed the same way (Duration.Seconds() can differ from it in the last bit).
func seconds(d time.Duration) float64 { return float64(d.Nanoseconds()) / 1e9 }

var backoffBase = time.Date(2009, 11, 10, 23, 0, 0, 0, time.UTC)

// instant: a time near the base, mostly whole seconds, sometimes with a fraction.
func (g gen) instant(spreadS int) time.Time {
	t := backoffBase.Add(time.Duration(g.r.IntN(2*spreadS+1)-spreadS) * time.Second)
	if g.chance(0.2) {
		t = t.Add(time.Duration(g.r.IntN(1000)) * time.Millisecond)
	}
	return t
}

func rfc(t time.Time) string { return t.Format(time.RFC3339Nano) }

// backoffDurations: the default and maximum backoff in seconds (whole milliseconds): the
// controller's own (10 s, 600 s), the ones its tests use, random ones, a maximum below the default.
func (g gen) backoffDurations() (float64, float64) {
	d := g.pick(1.0, 5.0, 10.0, 0.001, float64(1+g.r.IntN(60000))/1000).(float64)
	m := g.pick(600.0, 700.0, 60.0, d, d/2, float64(1+g.r.IntN(3600000))/1000).(float64)
	return d, m
}

// failures: consecutive failures; small counts mostly, a few past where the doubling saturates.
// (Not int32's edge: upstream's doubling loop runs once per failure until it reaches the maximum,
// and a zero default never does.)
func (g gen) failures() int {
	switch g.r.IntN(10) {
	case 0:
		return g.pick(-1, 0, 63, 64, 65, 100).(int)
	default:
		return g.r.IntN(25)
	}
}

func (g gen) jobBackoffRemaining() map[string]any {
	d, m := g.backoffDurations()
	last := g.instant(3600)
	// Elapsed time: mostly within the first minute (inside the backoff), sometimes up to past
	// the longest one, sometimes a clock behind the failure.
	elapsedMs := g.r.IntN(60000)
	if g.chance(0.4) {
		elapsedMs = g.r.IntN(1300000) - 10000
	}
	now := last.Add(time.Duration(elapsedMs) * time.Millisecond)
	return map[string]any{"component": "job-controller", "function": "getRemainingTime",
		"defaultBackoffSeconds": d, "maxBackoffSeconds": m, "failuresAfterLastSuccess": g.failures(),
		"lastFailureTime": rfc(last), "now": rfc(now)}
}

// finishedPod: a failed Pod whose finish time comes from any of getFinishedTime's sources:
// container statuses (all terminated or not; sidecars among the init containers), a Ready
// condition, the deletion timestamp with a grace period, the creation time.
func (g gen) finishedPod() map[string]any {
	spec := map[string]any{"restartPolicy": "Never", "containers": []any{g.container("main")}}
	var inits []any
	for i, n := 0, g.r.IntN(3); i < n; i++ {
		c := g.container(fmt.Sprintf("init%d", i))
		if g.chance(0.5) {
			c["restartPolicy"] = "Always"
		}
		inits = append(inits, c)
	}
	if len(inits) > 0 {
		spec["initContainers"] = inits
	}
	status := func(name string) map[string]any {
		s := map[string]any{"name": name, "image": "busybox:1.36", "imageID": "", "ready": false, "restartCount": 0}
		switch g.r.IntN(5) {
		case 0:
			s["state"] = map[string]any{"running": map[string]any{"startedAt": rfc(g.instant(600))}}
		case 1:
			s["state"] = map[string]any{"terminated": map[string]any{"exitCode": 1}}
		default:
			s["state"] = map[string]any{"terminated": map[string]any{"exitCode": 1, "finishedAt": rfc(g.instant(600))}}
		}
		return s
	}
	st := map[string]any{"phase": "Failed"}
	var cs []any
	for i, n := 0, g.r.IntN(3); i < n; i++ {
		cs = append(cs, status(g.pick("main", "other").(string)))
	}
	if len(cs) > 0 {
		st["containerStatuses"] = cs
	}
	var ics []any
	for i := range inits {
		if g.chance(0.7) {
			ics = append(ics, status(fmt.Sprintf("init%d", i)))
		}
	}
	if len(ics) > 0 {
		st["initContainerStatuses"] = ics
	}
	if g.chance(0.5) {
		c := map[string]any{"type": g.pick("Ready", "Ready", "ContainersReady", "DisruptionTarget").(string), "status": g.pick("False", "True", "Unknown").(string)}
		if g.chance(0.8) {
			c["lastTransitionTime"] = rfc(g.instant(600))
		}
		st["conditions"] = []any{c}
	}
	meta := map[string]any{"name": "job-0-x", "namespace": "default"}
	if g.chance(0.8) {
		meta["creationTimestamp"] = rfc(g.instant(600))
	}
	if g.chance(0.4) {
		meta["deletionTimestamp"] = rfc(g.instant(600))
		if g.chance(0.7) {
			meta["deletionGracePeriodSeconds"] = g.pick(0, 1, 30, 3600).(int)
		}
	}
	ann := map[string]any{}
	count := func() string {
		return g.pick("0", "1", "2", "5", "30", "-1", "abc", "", "2147483647", "2147483648").(string)
	}
	if g.chance(0.8) {
		ann["batch.kubernetes.io/job-index-failure-count"] = count()
	}
	if g.chance(0.5) {
		ann["batch.kubernetes.io/job-index-ignored-failure-count"] = count()
	}
	if len(ann) > 0 {
		meta["annotations"] = ann
	}
	return map[string]any{"apiVersion": "v1", "kind": "Pod", "metadata": meta, "spec": spec, "status": st}
}

func (g gen) jobBackoffPerIndex() map[string]any {
	d, m := g.backoffDurations()
	in := map[string]any{"component": "job-controller", "function": "getRemainingTimePerIndex",
		"defaultBackoffSeconds": d, "maxBackoffSeconds": m, "now": rfc(g.instant(1800))}
	if g.chance(0.9) {
		in["lastFailedPod"] = g.finishedPod()
	}
	return in
}

func (g gen) jobFinishedTime() map[string]any {
	return map[string]any{"component": "job-controller", "function": "getFinishedTime", "pod": g.finishedPod()}
}

type jobBackoffInput struct {
	Function        string      `json:"function"`
	DefaultBackoff  float64     `json:"defaultBackoffSeconds"`
	MaxBackoff      float64     `json:"maxBackoffSeconds"`
	Failures        int32       `json:"failuresAfterLastSuccess"`
	LastFailureTime time.Time   `json:"lastFailureTime"`
	Now             time.Time   `json:"now"`
	LastFailedPod   *corev1.Pod `json:"lastFailedPod"`
	Pod             *corev1.Pod `json:"pod"`
}

// dur: seconds to a Duration, rounded to the nanosecond as restartkit reads them.
func dur(s float64) time.Duration { return time.Duration(math.Round(s * 1e9)) }

var discard = logr.Discard() // the helpers log bad annotations; keep the run quiet

func upstreamJobBackoff(raw []byte) (map[string]any, error) {
	var in jobBackoffInput
	if err := json.Unmarshal(raw, &in); err != nil {
		return nil, err
	}
	clk := clocktesting.NewFakeClock(in.Now)
	switch in.Function {
	case "getRemainingTime":
		last := in.LastFailureTime
		return map[string]any{"remainingSeconds": seconds(getRemainingTimeForFailuresCount(clk, dur(in.DefaultBackoff), dur(in.MaxBackoff), in.Failures, &last))}, nil
	case "getRemainingTimePerIndex":
		out := map[string]any{"remainingSeconds": seconds(getRemainingTimePerIndex(discard, clk, dur(in.DefaultBackoff), dur(in.MaxBackoff), in.LastFailedPod))}
		if in.LastFailedPod != nil {
			out["failuresCount"] = getIndexAbsoluteFailureCount(discard, in.LastFailedPod) + 1
		}
		return out, nil
	case "getFinishedTime":
		if in.Pod == nil {
			return nil, fmt.Errorf("no pod")
		}
		return map[string]any{"finishedTime": rfc(getFinishedTime(in.Pod).UTC())}, nil
	}
	return nil, fmt.Errorf("unknown function %q", in.Function)
}

// The kubelet's CrashLoopBackOff set-up: newCrashLoopBackOff (pkg/kubelet/kubelet.go) on the
// KubeletConfiguration as the kubelet loads it (v1beta1 defaulting, conversion, validation), with
// the kubelet's gates (command line, then the configuration's featureGates), and the curve of a
// container that crashes as soon as it starts: the kubelet's flowcontrol.Backoff driven as
// kuberuntime's doBackOff drives it, on a fake clock.

var crashLoopGates = []string{"ReduceDefaultCrashLoopBackOffDecay", "KubeletCrashLoopBackOffMax"}

// someGates draws a value for some of names; those the linked release does not know are left
// out after the draw (the kubelet refuses to start with a gate it does not know).
func (g gen) someGates(names []string) map[string]any {
	m := map[string]any{}
	for _, n := range names {
		if g.chance(0.5) {
			if on := g.chance(0.5); knownGates[n] {
				m[n] = on
			}
		}
	}
	return m
}

func (g gen) kubeletBackoff() map[string]any {
	cfg := map[string]any{"apiVersion": "kubelet.config.k8s.io/v1beta1", "kind": "KubeletConfiguration",
		"cgroupDriver": "systemd", "containerRuntimeEndpoint": "unix:///run/containerd/containerd.sock"}
	if fg := g.someGates(crashLoopGates); len(fg) > 0 {
		cfg["featureGates"] = fg
	}
	if g.chance(0.6) {
		cfg["crashLoopBackOff"] = map[string]any{"maxContainerRestartPeriod": g.pick("1s", "2s", "5s", "10s", "30s", "60s", "1m30s", "300s", "5m", "500ms", "301s", "0s").(string)}
	}
	in := map[string]any{"component": "kubelet", "restarts": g.r.IntN(20)}
	if fg := g.someGates(crashLoopGates); len(fg) > 0 {
		in["featureGates"] = fg
	}
	if g.chance(0.9) {
		in["kubeletConfig"] = cfg
	}
	return in
}

type kubeletBackoffInput struct {
	FeatureGates  map[string]bool `json:"featureGates"`
	KubeletConfig json.RawMessage `json:"kubeletConfig"`
	Restarts      int             `json:"restarts"`
}

var kubeletScheme = func() *runtime.Scheme {
	s, _, err := kubeletconfigscheme.NewSchemeAndCodecs()
	if err != nil {
		panic(err)
	}
	return s
}()

func upstreamKubeletBackoff(raw []byte) (map[string]any, error) {
	var in kubeletBackoffInput
	if err := json.Unmarshal(raw, &in); err != nil {
		return nil, err
	}
	// The kubelet sets its command-line gates first; defaulting reads them with the
	// configuration's own featureGates on top, and so does everything after it.
	if err := setGates(in.FeatureGates); err != nil {
		return nil, err
	}
	ext := &kubeletconfigv1beta1.KubeletConfiguration{}
	if len(in.KubeletConfig) > 0 {
		if err := json.Unmarshal(in.KubeletConfig, ext); err != nil {
			return nil, err
		}
	}
	kubeletScheme.Default(ext)
	cfg := &kubeletconfiginternal.KubeletConfiguration{}
	if err := kubeletScheme.Convert(ext, cfg, nil); err != nil {
		return nil, err
	}
	gates := map[string]bool{}
	for k, v := range in.FeatureGates {
		gates[k] = v
	}
	for k, v := range cfg.FeatureGates {
		gates[k] = v
	}
	if err := setGates(gates); err != nil {
		return nil, err
	}
	// Upstream's validation also checks the host's cgroup version; that is no backoff question
	// (and this host's answer is not the user's), so the check is left out.
	cfg.FailCgroupV1 = false
	if err := kubeletconfigvalidation.ValidateKubeletConfiguration(cfg, utilfeature.DefaultFeatureGate); err != nil {
		// A refused configuration is skipped: the vector format has no way to expect a refused
		// request (restartkit's refusals are compared by the conformance vectors instead).
		return nil, fmt.Errorf("the kubelet refuses the configuration: %v", err)
	}
	boMax, initial := crashLoopBackOff(cfg)
	clk := clocktesting.NewFakeClock(backoffBase)
	b := flowcontrol.NewFakeBackOff(initial, boMax, clk)
	setCrashLoopExpiry(b)
	delays := []any{}
	for k := 0; k < in.Restarts; k++ {
		finishedAt := clk.Now() // crashed as soon as it started
		var delay time.Duration
		if b.IsInBackOffSince("c", finishedAt) {
			delay = b.Get("c")
			clk.Step(delay)
		}
		b.Next("c", finishedAt)
		delays = append(delays, seconds(delay))
	}
	return map[string]any{"initialSeconds": seconds(initial), "maxSeconds": seconds(boMax), "delaysSeconds": delays}, nil
}
