package main

// The validate(Service) leg: Services drawn mostly valid, with the mistakes people make (port
// names, protocols and ranges, duplicate ports, types, ExternalName, clusterIP(s), ipFamilies and
// ipFamilyPolicy, session affinity, traffic policies, externalIPs, source ranges,
// loadBalancerClass, trafficDistribution), through the create path: v1 defaulting, the Service
// REST storage's steps before validation that depend only on the object, then the strategy's
// PrepareForCreate and Validate.
//
// The REST storage's allocator (pkg/registry/core/service/storage/alloc.go) is unexported and
// needs a cluster's IP ranges, so its object-only steps are restated here, each beside the
// upstream function it follows: normalizeClusterIPs, initIPFamilyFields up to the cluster's
// families (it calls upstream's ValidateServiceClusterIPsRelatedFields itself), initNodePorts
// against an empty node-port range, allocHealthCheckNodePort. What a cluster's configuration
// decides (families, CIDRs, the node-port range) is not drawn: nodePorts stay in 30000-32767
// and healthCheckNodePort apart from them.

import (
	"encoding/json"
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/kubernetes/pkg/api/legacyscheme"
	api "k8s.io/kubernetes/pkg/apis/core"
	serviceregistry "k8s.io/kubernetes/pkg/registry/core/service"
)

func (g gen) servicePort(named bool) map[string]any {
	p := map[string]any{"port": g.vb([]any{80, 443, 8080, 53, 9090}, []any{0, 70000, 10250})}
	if named || g.chance(0.3) {
		p["name"] = g.vb([]any{"http", "https", "dns", "metrics"}, []any{"Web", "my_port", "a-very-long-port-name-that-is-over-sixty-three-characters-long-abcdefgh", ""}).(string)
	}
	g.maybe(p, "protocol", func() any { return g.vb([]any{"TCP", "UDP", "SCTP"}, []any{"tcp", "HTTP"}) })
	g.maybe(p, "targetPort", func() any {
		return g.vb([]any{8080, "http", 9090, 0, ""}, []any{70000, -1, "web-port-name-too-long", "HTTP", "9090", "a--b"})
	})
	if g.chance(0.2) {
		p["nodePort"] = g.pick(30080, 30081, 30443, 32767)
	}
	if g.chance(0.1) {
		p["appProtocol"] = g.vb([]any{"http", "kubernetes.io/h2c", "example.com/grpc"}, []any{"bad proto"})
	}
	return p
}

// vb: one of `valid`, now and then (5%) one of `bad`.
func (g gen) vb(valid, bad []any) any {
	if g.chance(0.05) {
		return bad[g.r.IntN(len(bad))]
	}
	return valid[g.r.IntN(len(valid))]
}

func (g gen) clusterIPValue() any {
	return g.vb([]any{"10.96.0.10", "None", "None", "", "fd00::10", "10.96.0.11"}, []any{"10.96.0.300", "010.96.0.1", "::ffff:10.96.0.1", "none"})
}

func (g gen) validateService() map[string]any {
	spec := map[string]any{}
	typ := g.vb([]any{"", "", "ClusterIP", "ClusterIP", "NodePort", "LoadBalancer", "ExternalName"}, []any{"External", "clusterip"}).(string)
	if typ != "" {
		spec["type"] = typ
	}
	n := g.pick(1, 1, 1, 2, 2, 3, 0).(int)
	if typ == "ExternalName" && g.chance(0.7) {
		n = 0
	}
	ports := []any{}
	for i := 0; i < n; i++ {
		ports = append(ports, g.servicePort(n > 1 && g.chance(0.85)))
	}
	if n > 0 || g.chance(0.5) {
		spec["ports"] = ports
	}
	if g.chance(0.8) {
		spec["selector"] = g.vb([]any{map[string]any{"app": "web"}, map[string]any{"app": "web", "tier": "frontend"}, map[string]any{}},
			[]any{map[string]any{"app": "web", "tier": "front end"}, map[string]any{"-bad": "x"}})
	}
	if typ == "ExternalName" || g.chance(0.05) {
		if g.chance(0.9) {
			spec["externalName"] = g.vb([]any{"db.example.com", "db.example.com."}, []any{"My_DB", "", strings.Repeat("a", 64) + ".com"})
		}
	}
	if g.chance(0.25) {
		spec["clusterIP"] = g.clusterIPValue()
	}
	if g.chance(0.1) {
		ips := []any{}
		for i := 0; i < g.pick(1, 2, 2, 3).(int); i++ {
			ips = append(ips, g.pick("10.96.0.10", "fd00::10", "None", "10.96.0.11", "bad", "fd00::11"))
		}
		if ip, ok := spec["clusterIP"].(string); ok && g.chance(0.8) {
			ips[0] = ip
		}
		spec["clusterIPs"] = ips
	}
	if g.chance(0.12) {
		fams := []any{}
		for i := 0; i < g.pick(1, 2, 3).(int); i++ {
			fams = append(fams, g.pick("IPv4", "IPv6", "ipv4"))
		}
		spec["ipFamilies"] = fams
	}
	g.maybe(spec, "ipFamilyPolicy", func() any {
		if g.chance(0.6) {
			return nil
		}
		return g.pick("SingleStack", "PreferDualStack", "RequireDualStack", "DualStack")
	})
	if g.chance(0.25) {
		spec["sessionAffinity"] = g.vb([]any{"None", "ClientIP", "ClientIP"}, []any{"Sticky"})
		if g.chance(0.6) {
			cfg := map[string]any{}
			if g.chance(0.85) {
				c := map[string]any{}
				g.maybe(c, "timeoutSeconds", func() any { return g.vb([]any{10800, 86400, 60}, []any{0, -5, 86401}) })
				cfg["clientIP"] = c
			}
			spec["sessionAffinityConfig"] = cfg
		}
	}
	if g.chance(0.2) && (typ == "NodePort" || typ == "LoadBalancer" || g.chance(0.2)) {
		spec["externalTrafficPolicy"] = g.vb([]any{"Cluster", "Local", "Local"}, []any{"local"})
	}
	if g.chance(0.06) {
		spec["healthCheckNodePort"] = g.vb([]any{32000, 32001}, []any{70000, -1})
	}
	if g.chance(0.12) {
		spec["internalTrafficPolicy"] = g.vb([]any{"Cluster", "Local"}, []any{"Node"})
	}
	if g.chance(0.12) {
		ips := []any{}
		for i := 0; i < g.pick(1, 2).(int); i++ {
			ips = append(ips, g.vb([]any{"203.0.113.10", "2001:db8::5", "198.51.100.7"}, []any{"127.0.0.1", "0.0.0.0", "169.254.1.1", "224.0.0.1", "fe80::1", "::1", "203.0.113", "203.0.113.010", "::ffff:203.0.113.1", "::", "ff02::1"}))
		}
		spec["externalIPs"] = ips
	}
	if g.chance(0.12) {
		rs := []any{}
		for i := 0; i < g.pick(1, 2).(int); i++ {
			rs = append(rs, g.vb([]any{"10.0.0.0/8", " 192.168.0.0/16 ", "2001:db8::/32", "0.0.0.0/0"}, []any{"10.0.0.1/8", "10.0.0.0/33", "10.0.0.0", "10.0.0.0/08", "::ffff:10.0.0.0/104", "2001:db8::1/32", "010.0.0.0/8"}))
		}
		spec["loadBalancerSourceRanges"] = rs
	}
	if g.chance(0.08) {
		spec["allocateLoadBalancerNodePorts"] = g.chance(0.5)
	}
	if g.chance(0.08) {
		spec["loadBalancerClass"] = g.vb([]any{"example.com/lb", "internal"}, []any{"bad class", ""})
	}
	if g.chance(0.1) {
		spec["trafficDistribution"] = g.vb([]any{"PreferClose", "PreferSameZone", "PreferSameNode"}, []any{"Nearest"})
	}
	md := map[string]any{"name": "web", "namespace": "default"}
	ann := map[string]any{}
	if g.chance(0.05) {
		ann["service.beta.kubernetes.io/load-balancer-source-ranges"] = g.pick("10.0.0.0/8, 192.168.0.0/16", "bad", "", " 10.0.0.1/8")
	}
	if g.chance(0.04) {
		ann["service.kubernetes.io/topology-mode"] = g.pick("Auto", "auto")
		ann["service.kubernetes.io/topology-aware-hints"] = "Auto"
	}
	if len(ann) > 0 {
		md["annotations"] = ann
	}
	obj := map[string]any{"apiVersion": "v1", "kind": "Service", "metadata": md, "spec": spec}
	return map[string]any{"object": obj}
}

// admitService: decode with v1 defaulting, convert, the REST storage's object-only steps; the
// internal Service as validation gets it, the ports whose node port was allocated, and the
// errors the storage refuses it with first (nil: none).
func admitService(raw []byte) (*api.Service, map[int]bool, field.ErrorList, error) {
	var v corev1.Service
	if err := json.Unmarshal(raw, &v); err != nil {
		return nil, nil, nil, err
	}
	legacyscheme.Scheme.Default(&v)
	var svc api.Service
	if err := legacyscheme.Scheme.Convert(&v, &svc, nil); err != nil {
		return nil, nil, nil, err
	}
	// normalizeClusterIPs (create).
	if len(svc.Spec.ClusterIP) > 0 && len(svc.Spec.ClusterIPs) == 0 {
		svc.Spec.ClusterIPs = []string{svc.Spec.ClusterIP}
	}
	// initIPFamilyFields, up to what the cluster's families decide.
	if svc.Spec.Type != api.ServiceTypeExternalName {
		if svc.Spec.IPFamilyPolicy == nil {
			p := api.IPFamilyPolicySingleStack
			if svc.Spec.ClusterIP == api.ClusterIPNone && len(svc.Spec.Selector) == 0 {
				p = api.IPFamilyPolicyRequireDualStack
			}
			svc.Spec.IPFamilyPolicy = &p
		}
		if el := clusterIPsRelated(&svc); len(el) != 0 {
			return &svc, nil, el, nil
		}
		el := field.ErrorList{}
		if *svc.Spec.IPFamilyPolicy == api.IPFamilyPolicySingleStack {
			if len(svc.Spec.ClusterIPs) == 2 {
				el = append(el, field.Invalid(field.NewPath("spec", "ipFamilyPolicy"), svc.Spec.IPFamilyPolicy,
					"must be 'RequireDualStack' or 'PreferDualStack' when multiple cluster IPs are specified"))
			}
			if len(svc.Spec.IPFamilies) == 2 {
				el = append(el, field.Invalid(field.NewPath("spec", "ipFamilyPolicy"), svc.Spec.IPFamilyPolicy,
					"must be 'RequireDualStack' or 'PreferDualStack' when multiple IP families are specified"))
			}
		}
		if len(el) > 0 {
			return &svc, nil, el, nil
		}
	}
	// initNodePorts against an empty range: AllocateNext hands out ports no request names.
	allocated := map[int]bool{}
	taken := map[int]bool{}
	next := 31000
	allocateNext := func() int {
		for taken[next] {
			next++
		}
		taken[next] = true
		return next
	}
	if svc.Spec.Type == api.ServiceTypeNodePort || svc.Spec.Type == api.ServiceTypeLoadBalancer {
		should := svc.Spec.Type == api.ServiceTypeNodePort || *svc.Spec.AllocateLoadBalancerNodePorts
		byPort := map[int]int{}
		for i := range svc.Spec.Ports {
			sp := &svc.Spec.Ports[i]
			if sp.NodePort == 0 && !should {
				continue
			}
			had := byPort[int(sp.Port)]
			if had == 0 {
				np := 0
				for _, o := range svc.Spec.Ports {
					if o.Port == sp.Port && o.NodePort != 0 {
						np = int(o.NodePort)
						break
					}
				}
				if np != 0 {
					if taken[np] {
						return &svc, nil, field.ErrorList{field.Invalid(field.NewPath("spec", "ports").Index(i).Child("nodePort"), np, "provided port is already allocated")}, nil
					}
					taken[np] = true
					sp.NodePort = int32(np)
					byPort[int(sp.Port)] = np
				} else {
					np = allocateNext()
					sp.NodePort = int32(np)
					byPort[int(sp.Port)] = np
					allocated[i] = true
				}
			} else if int(sp.NodePort) != had {
				if sp.NodePort == 0 {
					sp.NodePort = int32(had)
					allocated[i] = allocated[indexOfNodePort(svc.Spec.Ports, had)]
				} else {
					if taken[int(sp.NodePort)] {
						return &svc, nil, field.ErrorList{field.Invalid(field.NewPath("spec", "ports").Index(i).Child("nodePort"), sp.NodePort, "provided port is already allocated")}, nil
					}
					taken[int(sp.NodePort)] = true
				}
			}
		}
	}
	// allocHealthCheckNodePort (the generator keeps a requested one apart from the node ports).
	if svc.Spec.Type == api.ServiceTypeLoadBalancer && svc.Spec.ExternalTrafficPolicy == api.ServiceExternalTrafficPolicyLocal && svc.Spec.HealthCheckNodePort == 0 {
		svc.Spec.HealthCheckNodePort = int32(allocateNext())
	}
	return &svc, allocated, nil, nil
}

// indexOfNodePort: the first port holding node port np.
func indexOfNodePort(ports []api.ServicePort, np int) int {
	for i, p := range ports {
		if int(p.NodePort) == np {
			return i
		}
	}
	return -1
}

func upstreamService(raw []byte) (map[string]any, error) {
	in, err := gatedValidateInput(raw)
	if err != nil {
		return nil, err
	}
	svc, allocated, refused, err := admitService(in.Object)
	if err != nil {
		return nil, err
	}
	if refused != nil {
		return withMessages(refused, nil), nil
	}
	serviceregistry.Strategy.PrepareForCreate(ctxNS(), svc)
	errs := serviceregistry.Strategy.Validate(ctxNS(), svc)
	// A duplicate of a node port the cluster picked names the cluster's pick: both sides say so.
	for _, e := range errs {
		for i := range allocated {
			if allocated[i] && e.Type == field.ErrorTypeDuplicate && e.Field == fmt.Sprintf("spec.ports[%d].nodePort", i) {
				e.BadValue = "<the node port the cluster allocates>"
			}
		}
	}
	exp := withMessages(errs, nil)
	for _, k := range []string{"errors", "errorMessages"} {
		if _, ok := exp[k]; !ok {
			continue
		}
		b, _ := json.Marshal(exp[k])
		s := strings.ReplaceAll(string(b), `\"\u003cthe node port the cluster allocates\u003e\"`, `\u003cthe node port the cluster allocates\u003e`)
		var v any
		_ = json.Unmarshal([]byte(s), &v)
		exp[k] = v
	}
	return exp, nil
}
