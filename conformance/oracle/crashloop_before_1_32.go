//go:build k8s_before_1_32

package main

// The kubelet's CrashLoopBackOff in 1.31: NewMainKubelet (pkg/kubelet/kubelet.go v1.31.13 line
// 876) builds it as flowcontrol.NewBackOff(backOffPeriod, MaxContainerBackOff): 10 s doubling to
// 300 s, whatever the configuration (which has no crashLoopBackOff yet); backOffPeriod is a
// constant, restated here. flowcontrol.Backoff has no expiry hook yet: its own rule applies (an
// entry not updated for twice the maximum, 600 s, starts over).

import (
	"time"

	"k8s.io/client-go/util/flowcontrol"
	"k8s.io/kubernetes/pkg/kubelet"
	kubeletconfiginternal "k8s.io/kubernetes/pkg/kubelet/apis/config"
)

const backOffPeriod = 10 * time.Second // pkg/kubelet/kubelet.go v1.31.13 line 193

func crashLoopBackOff(*kubeletconfiginternal.KubeletConfiguration) (time.Duration, time.Duration) {
	return kubelet.MaxContainerBackOff, backOffPeriod
}

func setCrashLoopExpiry(*flowcontrol.Backoff) {}
