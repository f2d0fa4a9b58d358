//go:build !k8s_before_1_35

package main

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/klog/v2"
	kubecontainer "k8s.io/kubernetes/pkg/kubelet/container"
)

// shouldContainerBeRestarted: from 1.35 the kubelet helper takes a logger.
func shouldContainerBeRestarted(c *corev1.Container, pod *corev1.Pod, status *kubecontainer.PodStatus) bool {
	return kubecontainer.ShouldContainerBeRestarted(klog.Background(), c, pod, status)
}
