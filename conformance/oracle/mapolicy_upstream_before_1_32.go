//go:build k8s_before_1_32

package main

// upstreamMutatingAdmissionPolicy: 1.31 has no MutatingAdmissionPolicy; the leg's generator
// draws ValidatingAdmissionPolicy cases there.
func upstreamMutatingAdmissionPolicy(raw []byte) (map[string]any, error) {
	return upstreamAdmissionPolicy(raw)
}
