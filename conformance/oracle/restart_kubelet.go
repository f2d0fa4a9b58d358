package main

// The kubelet's restart decision for an exited container, as every minor composes it: a sidecar
// (an init container with restartPolicy Always) is restarted whenever it exits
// (kuberuntime's computeInitContainerActions); any other container as
// kubecontainer.ShouldContainerBeRestarted says, which asks pkg/api/v1/pod's
// ContainerShouldRestart when ContainerRestartRules is on (1.34 alpha, on by default from 1.35)
// and reads the Pod's restartPolicy alone otherwise. Whether a container can ever be restarted
// follows the same gate (kubelet.go reads IsContainerRestartable only with it on).

import (
	corev1 "k8s.io/api/core/v1"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	"k8s.io/component-base/featuregate"
	kubecontainer "k8s.io/kubernetes/pkg/kubelet/container"
)

// gateOn: the gate is registered in the linked release and on.
func gateOn(name string) bool {
	return knownGates[name] && utilfeature.DefaultFeatureGate.Enabled(featuregate.Feature(name))
}

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

func kubeletShouldRestart(c corev1.Container, spec corev1.PodSpec, code int32) bool {
	if isSidecar(c, spec) {
		return true
	}
	status := &kubecontainer.PodStatus{ContainerStatuses: []*kubecontainer.Status{
		{Name: c.Name, State: kubecontainer.ContainerStateExited, ExitCode: int(code)},
	}}
	return shouldContainerBeRestarted(&c, &corev1.Pod{Spec: spec}, status)
}

func kubeletRestartable(spec corev1.PodSpec, c corev1.Container) bool {
	if gateOn("ContainerRestartRules") {
		return containerRestartable(spec, c)
	}
	return isSidecar(c, spec) || spec.RestartPolicy != corev1.RestartPolicyNever
}
