//go:build !k8s_before_1_35

package main

// The container restart questions from 1.35: pkg/api/v1/pod's ContainerShouldRestart,
// IsContainerRestartable and FindMatchingContainerRestartRule (KEP-5307), and the status
// transition check with its PodValidationOptions (restart rules and RestartAllContainers on, as
// the statusTransition vectors state).

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	podutil "k8s.io/kubernetes/pkg/api/v1/pod"
	api "k8s.io/kubernetes/pkg/apis/core"
	corevalidation "k8s.io/kubernetes/pkg/apis/core/validation"
)

func containerShouldRestart(c corev1.Container, spec corev1.PodSpec, code int32) bool {
	return podutil.ContainerShouldRestart(c, spec, code)
}

func containerRestartable(spec corev1.PodSpec, c corev1.Container) bool {
	return podutil.IsContainerRestartable(spec, c)
}

func findMatchingRule(c corev1.Container, code int32) bool {
	_, ok := podutil.FindMatchingContainerRestartRule(c, code)
	return ok
}

func transitionErrors(newS, oldS []api.ContainerStatus, spec api.PodSpec) field.ErrorList {
	opts := corevalidation.PodValidationOptions{AllowContainerRestartPolicyRules: true, AllowRestartAllContainers: true}
	return corevalidation.ValidateContainerStateTransition(newS, oldS, field.NewPath("status", "containerStatuses"), spec, opts)
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
