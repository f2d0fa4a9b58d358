//go:build k8s_before_1_34

package main

// The container restart questions before 1.34, which has no container-level restart policy for
// regular containers nor restart rules (KEP-5307 starts in 1.34): the kubelet restarts a
// restartable init container (a sidecar) whenever it exits (kuberuntime's
// computeInitContainerActions), and any other exited container as
// kubecontainer.ShouldContainerBeRestarted says, from the Pod's restartPolicy; a container can be
// restarted unless that policy is Never. The status transition check reads the Pod's
// restartPolicy alone.

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	api "k8s.io/kubernetes/pkg/apis/core"
	corevalidation "k8s.io/kubernetes/pkg/apis/core/validation"
	kubecontainer "k8s.io/kubernetes/pkg/kubelet/container"
)

// isSidecar: c is one of spec's init containers, and restartable: its restartPolicy is Always
// (IsRestartableInitContainer, in pkg/kubelet/types in 1.31 and pkg/api/v1/pod from 1.32).
func isSidecar(c corev1.Container, spec corev1.PodSpec) bool {
	for _, ic := range spec.InitContainers {
		if ic.Name == c.Name {
			return ic.RestartPolicy != nil && *ic.RestartPolicy == corev1.ContainerRestartPolicyAlways
		}
	}
	return false
}

func containerShouldRestart(c corev1.Container, spec corev1.PodSpec, code int32) bool {
	if isSidecar(c, spec) {
		return true
	}
	status := &kubecontainer.PodStatus{ContainerStatuses: []*kubecontainer.Status{
		{Name: c.Name, State: kubecontainer.ContainerStateExited, ExitCode: int(code)},
	}}
	return kubecontainer.ShouldContainerBeRestarted(&c, &corev1.Pod{Spec: spec}, status)
}

func containerRestartable(spec corev1.PodSpec, c corev1.Container) bool {
	return isSidecar(c, spec) || spec.RestartPolicy != corev1.RestartPolicyNever
}

// matchingRuleIndex: there are no restart rules before 1.34 (the field does not exist).
func matchingRuleIndex(corev1.Container, int32) (int, bool) { return -1, false }

func transitionErrors(newS, oldS []api.ContainerStatus, spec api.PodSpec) field.ErrorList {
	return corevalidation.ValidateContainerStateTransition(newS, oldS, field.NewPath("status", "containerStatuses"), spec.RestartPolicy)
}
