//go:build !k8s_before_1_35

package main

import utilfeature "k8s.io/apiserver/pkg/util/feature"

// gateDependencies: the gates each gate needs on (featuregate.AddDependencies, from 1.35).
func gateDependencies() map[string][]string {
	out := map[string][]string{}
	for f, ds := range utilfeature.DefaultMutableFeatureGate.Dependencies() {
		for _, d := range ds {
			out[string(f)] = append(out[string(f)], string(d))
		}
	}
	return out
}
