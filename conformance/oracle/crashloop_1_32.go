//go:build k8s_before_1_33 && !k8s_before_1_32

package main

// The kubelet's CrashLoopBackOff set-up in 1.32. It has no function of its own: NewMainKubelet
// (pkg/kubelet/kubelet.go v1.32.13, lines 929-940) computes it inline, so its five lines are
// restated here, with the kubelet's own constants: MaxContainerBackOff (exported; 300 s) and
// containerBackOffPeriod (10 s, a constant, which cannot be pulled by name). With
// KubeletCrashLoopBackOffMax the configured maximum replaces MaxContainerBackOff, and lowers the
// initial delay when it is below it. The back-off expires after 600 s, as NewMainKubelet sets.

import (
	"time"

	utilfeature "k8s.io/apiserver/pkg/util/feature"
	"k8s.io/client-go/util/flowcontrol"
	"k8s.io/kubernetes/pkg/features"
	"k8s.io/kubernetes/pkg/kubelet"
	kubeletconfiginternal "k8s.io/kubernetes/pkg/kubelet/apis/config"
)

const containerBackOffPeriod = 10 * time.Second // pkg/kubelet/kubelet.go v1.32.13 line 206

func crashLoopBackOff(cfg *kubeletconfiginternal.KubeletConfiguration) (time.Duration, time.Duration) {
	boMax := kubelet.MaxContainerBackOff
	base := containerBackOffPeriod
	if utilfeature.DefaultFeatureGate.Enabled(features.KubeletCrashLoopBackOffMax) {
		boMax = cfg.CrashLoopBackOff.MaxContainerRestartPeriod.Duration
		if boMax < containerBackOffPeriod {
			base = boMax
		}
	}
	return boMax, base
}

func setCrashLoopExpiry(b *flowcontrol.Backoff) {
	b.HasExpiredFunc = func(eventTime, lastUpdate time.Time, _ time.Duration) bool {
		return eventTime.Sub(lastUpdate) > 600*time.Second
	}
}
