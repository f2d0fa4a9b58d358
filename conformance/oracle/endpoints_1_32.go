//go:build k8s_before_1_33 && !k8s_before_1_32

package main

import "errors"

// At 1.32 the Endpoints strategy cannot be linked: it imports k8s.io/endpointslice, whose
// v0.32.13 the module proxy does not serve. The leg skips every case (endpoints.go).
func (g gen) validateEndpoints() map[string]any {
	return map[string]any{"object": map[string]any{"apiVersion": "v1", "kind": "Endpoints"}}
}

func upstreamEndpoints([]byte) (map[string]any, error) {
	return nil, errors.New("the Endpoints strategy is not linked at 1.32 (k8s.io/endpointslice v0.32.13 is not served)")
}
