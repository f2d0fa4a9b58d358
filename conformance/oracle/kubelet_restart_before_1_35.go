//go:build k8s_before_1_35

package main

import (
	corev1 "k8s.io/api/core/v1"
	kubecontainer "k8s.io/kubernetes/pkg/kubelet/container"
)

// shouldContainerBeRestarted: up to 1.34 the kubelet helper takes no logger.
func shouldContainerBeRestarted(c *corev1.Container, pod *corev1.Pod, status *kubecontainer.PodStatus) bool {
	return kubecontainer.ShouldContainerBeRestarted(c, pod, status)
}
