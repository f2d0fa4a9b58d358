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
)

// Before 1.34 pkg/api/v1/pod has neither question: the kubelet's composition
// (restart_kubelet.go) is the answer, the gate being unknown.
func containerShouldRestart(c corev1.Container, spec corev1.PodSpec, code int32) bool {
	return kubeletShouldRestart(c, spec, code)
}

func containerRestartable(spec corev1.PodSpec, c corev1.Container) bool {
	return isSidecar(c, spec) || spec.RestartPolicy != corev1.RestartPolicyNever
}

// matchingRuleIndex: there are no restart rules before 1.34 (the field does not exist).
func matchingRuleIndex(corev1.Container, int32) (int, bool) { return -1, false }

func transitionErrors(newS, oldS []api.ContainerStatus, spec api.PodSpec) field.ErrorList {
	return corevalidation.ValidateContainerStateTransition(newS, oldS, field.NewPath("status", "containerStatuses"), spec.RestartPolicy)
}
