//go:build !k8s_before_1_33

package main

// The kubelet's CrashLoopBackOff set-up from 1.33: newCrashLoopBackOff (pkg/kubelet/kubelet.go,
// pulled by name) gives the maximum and initial delay from the gates and the configuration, and
// NewMainKubelet gives the back-off its own expiry: a container that ran 600 s starts over.

import (
	"time"
	_ "unsafe" // go:linkname

	"k8s.io/client-go/util/flowcontrol"
	_ "k8s.io/kubernetes/pkg/kubelet" // holds newCrashLoopBackOff
	kubeletconfiginternal "k8s.io/kubernetes/pkg/kubelet/apis/config"
)

//go:linkname newCrashLoopBackOff k8s.io/kubernetes/pkg/kubelet.newCrashLoopBackOff
func newCrashLoopBackOff(kubeCfg *kubeletconfiginternal.KubeletConfiguration) (time.Duration, time.Duration)

func crashLoopBackOff(cfg *kubeletconfiginternal.KubeletConfiguration) (time.Duration, time.Duration) {
	return newCrashLoopBackOff(cfg)
}

func setCrashLoopExpiry(b *flowcontrol.Backoff) {
	b.HasExpiredFunc = func(eventTime, lastUpdate time.Time, _ time.Duration) bool {
		return eventTime.Sub(lastUpdate) > 600*time.Second
	}
}
