//go:build k8s_before_1_35 && !k8s_before_1_34

package main

// The container restart questions in 1.34 (KEP-5307 alpha): ContainerShouldRestart and
// IsContainerRestartable; the rule matcher is still unexported (findMatchingContainerRestartRule,
// pulled by name); the status transition check takes the Pod spec but no options.

import (
	_ "unsafe" // go:linkname

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	podutil "k8s.io/kubernetes/pkg/api/v1/pod"
	api "k8s.io/kubernetes/pkg/apis/core"
	corevalidation "k8s.io/kubernetes/pkg/apis/core/validation"
)

//go:linkname findMatchingContainerRestartRule k8s.io/kubernetes/pkg/api/v1/pod.findMatchingContainerRestartRule
func findMatchingContainerRestartRule(container corev1.Container, exitCode int32) (rule corev1.ContainerRestartRule, found bool)

func containerShouldRestart(c corev1.Container, spec corev1.PodSpec, code int32) bool {
	return podutil.ContainerShouldRestart(c, spec, code)
}

func containerRestartable(spec corev1.PodSpec, c corev1.Container) bool {
	return podutil.IsContainerRestartable(spec, c)
}

func findMatchingRule(c corev1.Container, code int32) bool {
	_, ok := findMatchingContainerRestartRule(c, code)
	return ok
}

func transitionErrors(newS, oldS []api.ContainerStatus, spec api.PodSpec) field.ErrorList {
	return corevalidation.ValidateContainerStateTransition(newS, oldS, field.NewPath("status", "containerStatuses"), spec)
}

// matchingRuleIndex: whether upstream's matcher finds a rule, and which: it returns the rule
// itself, so its position is the shortest prefix of the rule list for which it finds one (-1
// when no prefix does, which cannot happen).
func matchingRuleIndex(c corev1.Container, code int32) (int, bool) {
	if !findMatchingRule(c, code) {
		return -1, false
	}
	rules := c.RestartPolicyRules
	for k := 1; k <= len(rules); k++ {
		cc := c
		cc.RestartPolicyRules = rules[:k]
		if findMatchingRule(cc, code) {
			return k - 1, true
		}
	}
	return -1, true
}
