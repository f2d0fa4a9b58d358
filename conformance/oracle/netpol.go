package main

// The validate(NetworkPolicy) leg: networking.k8s.io/v1 NetworkPolicies drawn around
// ValidateNetworkPolicySpec (ports with protocols, numbers, names and endPorts right and wrong;
// peers with none, one or several of podSelector, namespaceSelector and ipBlock; ipBlocks with
// their cidr empty, canonical or not, with leading zeros, bits beyond the prefix, IPv4-mapped
// or IPv6 forms, and except values inside, outside or equal to it; selectors ValidateLabelSelector
// refuses; policyTypes of every length), with StrictIPCIDRValidation and
// DeclarativeValidationBeta varied where the release lets them be set, through the create path:
// decoding, the v1 defaulting, conversion, PrepareForCreate, the release's create validation
// (createValidation, rbac_create_*.go) and, for a policy that passed, WarningsOnCreate. Full
// messages are compared, and the warnings.

import (
	networkingv1 "k8s.io/api/networking/v1"
	"k8s.io/kubernetes/pkg/apis/networking"
	networkpolicyregistry "k8s.io/kubernetes/pkg/registry/networking/networkpolicy"
)

func (g gen) netpolPort() map[string]any {
	p := map[string]any{}
	if g.chance(0.5) {
		p["protocol"] = g.mistake(0.2, []any{"TCP", "UDP", "SCTP"}, []any{"ICMP", "", "tcp"})
	}
	switch g.r.IntN(4) {
	case 0:
		p["port"] = g.mistake(0.25, []any{80, 443, 8080, 65535}, []any{0, -1, 65536})
		if g.chance(0.4) {
			p["endPort"] = g.pick(79, 80, 90, 8080, 70000, 0)
		}
	case 1:
		p["port"] = g.mistake(0.3, []any{"http", "metrics", "grpc-web"}, []any{"", "8080", "no_such_port!", "a-very-long-port-name", "-http"})
		if g.chance(0.2) {
			p["endPort"] = 90
		}
	case 2:
		if g.chance(0.4) {
			p["endPort"] = g.pick(80, 70000)
		}
	}
	return p
}

func (g gen) netpolCIDR(v6 bool) any {
	if v6 {
		return g.mistake(0.4, []any{"2001:db8::/64", "fd00::/8", "::/0"},
			[]any{"2001:DB8::/64", "2001:db8:0:0::/64", "2001:db8::1/64", "::ffff:10.0.0.0/104", "::ffff:10.0.0.1/104", "2001:db8::/129", "fe80::1%eth0/64"})
	}
	return g.mistake(0.45, []any{"10.0.0.0/8", "192.168.0.0/16", "172.16.5.0/24", "0.0.0.0/0"},
		[]any{"", "10.0.0.1/8", "010.0.0.0/8", "10.0.0.0/08", "10.0.0.0/33", "10.0.0.0", "not-a-cidr", "10.0.0.0/ 8", "256.0.0.0/8"})
}

func (g gen) netpolSelector() map[string]any {
	return g.mistake(0.3, []any{
		map[string]any{},
		map[string]any{"matchLabels": map[string]any{"app": "web"}},
		map[string]any{"matchExpressions": []any{map[string]any{"key": "tier", "operator": "In", "values": []any{"db"}}}},
	}, []any{
		map[string]any{"matchLabels": map[string]any{"app": "not valid!"}},
		map[string]any{"matchExpressions": []any{map[string]any{"key": "tier", "operator": "Within"}}},
		map[string]any{"matchExpressions": []any{map[string]any{"key": "tier", "operator": "In"}}},
	}).(map[string]any)
}

func (g gen) netpolPeer() map[string]any {
	p := map[string]any{}
	if g.chance(0.35) {
		p["podSelector"] = g.netpolSelector()
	}
	if g.chance(0.3) {
		p["namespaceSelector"] = g.netpolSelector()
	}
	if g.chance(0.5) {
		v6 := g.chance(0.3)
		b := map[string]any{}
		if c := g.netpolCIDR(v6); c != "" || g.chance(0.5) {
			b["cidr"] = c
		}
		if g.chance(0.5) {
			except := []any{}
			for i := 1 + g.r.IntN(2); i > 0; i-- {
				if v6 {
					except = append(except, g.pick("2001:db8::/96", "2001:db8::/64", "2001:db9::/96", "::ffff:10.1.0.0/112", "x"))
				} else {
					except = append(except, g.pick("10.1.0.0/16", "10.0.0.0/8", "11.0.0.0/16", "192.168.1.0/24", "172.16.5.0/25", "10.1.0.1/16", "010.1.0.0/16", "bad"))
				}
			}
			b["except"] = except
		}
		p["ipBlock"] = b
	}
	return p
}

// netpolCleanBlock: an ipBlock in a policy valid but for it, its values in the forms
// GetWarningsForCIDR warns of (and StrictIPCIDRValidation refuses).
func (g gen) netpolCleanBlock() map[string]any {
	b := map[string]any{"cidr": g.pick("10.0.0.0/8", "10.0.0.1/8", "010.0.0.0/8", "10.0.0.0/08", "::ffff:10.0.0.0/104",
		"::ffff:10.0.0.1/104", "2001:db8::/64", "2001:DB8::/64", "2001:db8:0:0::/64", "2001:db8::1/64", "2001:0db8::/32")}
	if g.chance(0.5) {
		b["except"] = []any{g.pick("10.1.0.0/16", "10.1.0.1/16", "010.2.0.0/16", "::ffff:10.3.0.0/112", "2001:db8::/96", "2001:db8:0:0:1::/80")}
	}
	return b
}

func (g gen) validateNetworkPolicy() map[string]any {
	spec := map[string]any{}
	clean := g.chance(0.25)
	if clean {
		dir, peers := "ingress", "from"
		if g.chance(0.5) {
			dir, peers = "egress", "to"
		}
		spec["podSelector"] = map[string]any{}
		spec[dir] = []any{map[string]any{peers: []any{map[string]any{"ipBlock": g.netpolCleanBlock()}}}}
		if g.chance(0.3) {
			spec["ingress"] = []any{map[string]any{"from": []any{map[string]any{"ipBlock": g.netpolCleanBlock()}}}}
		}
	} else if g.chance(0.8) {
		spec["podSelector"] = g.netpolSelector()
	}
	for _, dir := range []struct{ rules, peers string }{{"ingress", "from"}, {"egress", "to"}} {
		if clean || !g.chance(0.6) {
			continue
		}
		rules := []any{}
		for i := g.r.IntN(3); i > 0; i-- {
			r := map[string]any{}
			if g.chance(0.6) {
				ports := []any{}
				for j := g.r.IntN(3); j > 0; j-- {
					ports = append(ports, g.netpolPort())
				}
				r["ports"] = ports
			}
			if g.chance(0.7) {
				peers := []any{}
				for j := g.r.IntN(3); j > 0; j-- {
					peers = append(peers, g.netpolPeer())
				}
				r[dir.peers] = peers
			}
			rules = append(rules, r)
		}
		spec[dir.rules] = rules
	}
	if !clean && g.chance(0.4) {
		types := []any{}
		for i := g.r.IntN(4); i > 0; i-- {
			types = append(types, g.mistake(0.15, []any{"Ingress", "Egress"}, []any{"ingress", "", "Both"}))
		}
		spec["policyTypes"] = types
	}
	obj := map[string]any{"apiVersion": "networking.k8s.io/v1", "kind": "NetworkPolicy",
		"metadata": map[string]any{"name": g.pick("default-deny", "allow-web", "np.example").(string), "namespace": "default"}, "spec": spec}
	return map[string]any{"object": obj, "featureGates": gatesOf(g.drawGates("StrictIPCIDRValidation", "DeclarativeValidationBeta"))}
}

func upstreamNetworkPolicy(raw []byte) (map[string]any, error) {
	in, err := gatedValidateInput(raw)
	if err != nil {
		return nil, err
	}
	var np networking.NetworkPolicy
	if err := decodeAndConvert(in.Object, &networkingv1.NetworkPolicy{}, &np); err != nil {
		return nil, err
	}
	return createExpect(createRequestCtx("default", "networking.k8s.io", "networkpolicies"), networkpolicyregistry.Strategy, &np), nil
}
