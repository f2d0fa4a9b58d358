//go:build !k8s_before_1_33 || k8s_before_1_32

package main

// The validate(Endpoints) leg: v1 Endpoints drawn around ValidateEndpointsCreate (subsets with
// and without addresses; addresses whose ip is valid, special (unspecified, loopback,
// link-local, link-local multicast), non-standard (leading zeros, IPv4-mapped, upper-case
// IPv6) or no IP at all, hostnames and nodeNames right and wrong; ports with and without names,
// numbers in and out of range, protocols supported or not, empty (defaulted to TCP), and
// appProtocols), with StrictIPCIDRValidation drawn where the release lets it be set and,
// sometimes, the endpoints controller's managed-by label (no IP warnings then), through the
// create path: decoding, the v1 defaulting, conversion, PrepareForCreate, Validate and, for an
// object that passed, WarningsOnCreate. Full messages and warnings are compared.
//
// Not at 1.32: the Endpoints strategy imports k8s.io/endpointslice, whose v0.32.13 the module
// proxy does not serve (endpoints_1_32.go skips every case there).

import (
	corev1 "k8s.io/api/core/v1"
	api "k8s.io/kubernetes/pkg/apis/core"
	endpointsregistry "k8s.io/kubernetes/pkg/registry/core/endpoint"
)

// endpointsMistakes: the chance of a mistake in each drawn field (0 in a clean case).
type endpointsMistakes float64

func (g gen) endpointsIP(m endpointsMistakes) any {
	return g.mistake(float64(m)*1.5, []any{"10.0.0.5", "192.168.1.20", "2001:db8::10", "8.8.8.8", "2001:DB8::10", "2001:db8:0:0::10"},
		[]any{"", "0.0.0.0", "::", "127.0.0.1", "::1", "169.254.1.1", "fe80::1", "224.0.0.5", "ff02::1",
			"010.0.0.5", "::ffff:10.0.0.5", "2001:DB8::10", "2001:db8:0:0::10", "db.example.com", "10.0.0.256", "10.0.0.5/32"})
}

func (g gen) endpointsAddress(m endpointsMistakes) map[string]any {
	a := map[string]any{}
	if m == 0 || g.chance(0.95) {
		a["ip"] = g.endpointsIP(m)
	}
	if g.chance(0.25) {
		a["hostname"] = g.mistake(float64(m), []any{"db-0", "a"}, []any{"Db_0", "db.0", "-x", "a-very-long-hostname-that-goes-past-the-sixty-three-character-limit"})
	}
	if g.chance(0.25) {
		a["nodeName"] = g.mistake(float64(m), []any{"node-a", "ip-10-0-0-1.ec2.internal"}, []any{"", "Node_A", "node a", "-node"})
	}
	if g.chance(0.1) {
		a["targetRef"] = map[string]any{"kind": "Pod", "name": "db-0", "namespace": "default"}
	}
	return a
}

func (g gen) endpointsPort(m endpointsMistakes, several bool) map[string]any {
	p := map[string]any{}
	if (several && m == 0) || g.chance(0.6) {
		p["name"] = g.mistake(float64(m), []any{"http", "postgres", "grpc-web"}, []any{"", "HTTP", "no_such_port", "-http", "a-port-name-well-beyond-the-sixty-three-characters-of-a-dns-label"})
	}
	if m == 0 || g.chance(0.95) {
		p["port"] = g.mistake(float64(m), []any{80, 5432, 65535, 1}, []any{0, -1, 65536})
	}
	if g.chance(0.5) {
		p["protocol"] = g.mistake(float64(m), []any{"TCP", "UDP", "SCTP"}, []any{"", "tcp", "HTTP"})
	}
	if g.chance(0.2) {
		p["appProtocol"] = g.mistake(float64(m), []any{"http", "kubernetes.io/h2c", "example.com/custom"}, []any{"", "a/b/c", "-x", "example.com/"})
	}
	return p
}

func (g gen) validateEndpoints() map[string]any {
	// Four cases in ten have no mistake drawn; the rest a small chance in each field.
	m := endpointsMistakes(0)
	if !g.chance(0.4) {
		m = endpointsMistakes(g.pick(0.05, 0.1, 0.2).(float64))
	}
	subsets := []any{}
	for i := g.r.IntN(2); i >= 0; i-- {
		s := map[string]any{}
		ready, notReady := g.chance(0.9), g.chance(0.3)
		if m == 0 && !notReady {
			ready = true
		}
		for _, key := range []struct {
			name string
			on   bool
		}{{"addresses", ready}, {"notReadyAddresses", notReady}} {
			if key.on {
				addrs := []any{}
				for j := g.r.IntN(2); j >= 0; j-- {
					addrs = append(addrs, g.endpointsAddress(m))
				}
				s[key.name] = addrs
			}
		}
		if g.chance(0.8) {
			ports := []any{}
			n := g.r.IntN(2)
			for j := n; j >= 0; j-- {
				ports = append(ports, g.endpointsPort(m, n > 0))
			}
			s["ports"] = ports
		}
		subsets = append(subsets, s)
	}
	meta := map[string]any{"name": g.pick("db", "external-api", "svc.example").(string), "namespace": "default"}
	if g.chance(0.15) {
		meta["labels"] = map[string]any{"endpoints.kubernetes.io/managed-by": "endpoint-controller"}
	}
	obj := map[string]any{"apiVersion": "v1", "kind": "Endpoints", "metadata": meta}
	if g.chance(0.95) {
		obj["subsets"] = subsets
	}
	return map[string]any{"object": obj, "featureGates": gatesOf(g.drawGates("StrictIPCIDRValidation"))}
}

func upstreamEndpoints(raw []byte) (map[string]any, error) {
	in, err := gatedValidateInput(raw)
	if err != nil {
		return nil, err
	}
	var ep api.Endpoints
	if err := decodeAndConvert(in.Object, &corev1.Endpoints{}, &ep); err != nil {
		return nil, err
	}
	return createExpect(createRequestCtx("default", "", "endpoints"), endpointsregistry.Strategy, &ep), nil
}
