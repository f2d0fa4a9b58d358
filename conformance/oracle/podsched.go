package main

// The Pod scheduling and Pod DNS-and-identity legs: Pods that are valid but for their
// scheduling fields (nodeSelector, affinity, tolerations, topologySpreadConstraints,
// schedulingGates, readinessGates, priorityClassName, preemptionPolicy, runtimeClassName,
// nodeName, serviceAccountName), or their DNS and host fields (dnsPolicy, dnsConfig, hostname,
// subdomain, hostAliases, hostnameOverride, hostNetwork with host ports, hostPID with
// shareProcessNamespace, images with surrounding spaces, the annotations ValidatePodSpecific-
// Annotations checks), drawn around each rule's edges with the mistakes users make. Upstream
// takes each Pod through the release's create path (admitPod, Strategy.Validate); restartkit
// gets the Pod as generated, as a user writes it, not as admitted: PrepareForCreate merges
// matchLabelKeys into the selectors, which a second admission would merge again, so both sides
// must start from the same unadmitted object (restartkit does the defaulting and the merge).

import "fmt"

// The gates these legs vary; each case names every one the release lets be set, so that no
// setting leaks into the next case.
var podSchedGates = []string{
	"MatchLabelKeysInPodAffinity", "MatchLabelKeysInPodTopologySpread",
	"MatchLabelKeysInPodTopologySpreadSelectorMerge", "NodeInclusionPolicyInPodTopologySpread",
	"TaintTolerationComparisonOperators", "PodDeletionCost",
}
var podDNSGates = []string{
	"RelaxedDNSSearchValidation", "HostnameOverride", "StrictIPCIDRValidation", "PodDeletionCost",
	"UserNamespacesSupport", "UserNamespacesHostNetworkSupport",
}

func (g gen) gateSet(names []string) map[string]bool {
	out := map[string]bool{}
	for _, n := range names {
		if settableGate(n) {
			// Mostly the release's default, sometimes the other way.
			on := releaseDefaults[n]
			if g.chance(0.3) {
				on = !on
			}
			out[n] = on
		}
	}
	return out
}

// basePod: a small valid Pod (one or two containers) with `spec` fields merged in.
func (g gen) basePod() (map[string]any, map[string]any) {
	cs := []any{map[string]any{"name": "main", "image": "nginx:1.27"}}
	if g.chance(0.3) {
		cs = append(cs, map[string]any{"name": "sidecar", "image": "busybox:1.36"})
	}
	spec := map[string]any{"containers": cs}
	labels := map[string]any{"app": "web"}
	if g.chance(0.5) {
		labels["tier"] = g.pick("frontend", "db").(string)
	}
	p := map[string]any{"apiVersion": "v1", "kind": "Pod",
		"metadata": map[string]any{"name": "pod", "namespace": "default", "labels": labels}, "spec": spec}
	return p, spec
}

var schedKeys = []any{"disktype", "kubernetes.io/hostname", "topology.kubernetes.io/zone", "app", "tier",
	"example.com/gpu", "node-role.kubernetes.io/worker", "", "disk type", "-bad", "a/b/c", "example.com/",
	"Example.COM/x", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"}
var schedValues = []any{"ssd", "true", "us-east-1a", "web", "frontend", "V1.2_x", "", "fast ssd", "-x", "x-",
	"a/b", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"}

// key and value: mostly valid, sometimes one of the pool's mistakes.
func (g gen) schedKey() string {
	if g.chance(0.8) {
		return schedKeys[g.r.IntN(7)].(string)
	}
	return g.pick(schedKeys...).(string)
}
func (g gen) schedValue() string {
	if g.chance(0.8) {
		return schedValues[g.r.IntN(6)].(string)
	}
	return g.pick(schedValues...).(string)
}

func (g gen) values(n int) []any {
	var out []any
	for i := 0; i < n; i++ {
		out = append(out, g.schedValue())
	}
	return out
}

func (g gen) nodeRequirement() map[string]any {
	op := g.pick("In", "In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt", "Equals", "in", "").(string)
	r := map[string]any{"key": g.schedKey(), "operator": op}
	n := 0
	switch op {
	case "In", "NotIn":
		n = 1 + g.r.IntN(2)
	case "Gt", "Lt":
		n = 1
	}
	if g.chance(0.15) {
		n = g.r.IntN(3)
	}
	if n > 0 {
		if op == "Gt" || op == "Lt" {
			r["values"] = []any{g.pick("3", "10", "x").(string)}
		} else {
			r["values"] = g.values(n)
		}
	}
	return r
}

func (g gen) nodeTerm() map[string]any {
	t := map[string]any{}
	if g.chance(0.9) {
		var es []any
		for i := 0; i < 1+g.r.IntN(2); i++ {
			es = append(es, g.nodeRequirement())
		}
		t["matchExpressions"] = es
	}
	if g.chance(0.15) {
		f := map[string]any{"key": g.pick("metadata.name", "metadata.name", "metadata.namespace", "spec.nodeName").(string),
			"operator": g.pick("In", "NotIn", "Exists").(string)}
		if g.chance(0.85) {
			f["values"] = []any{g.pick("node-1", "Node_1", "node-1.example.com").(string)}
		}
		if g.chance(0.1) {
			f["values"] = []any{"a", "b"}
		}
		t["matchFields"] = []any{f}
	}
	return t
}

func (g gen) labelSelectorOf() map[string]any {
	s := map[string]any{}
	if g.chance(0.7) {
		s["matchLabels"] = map[string]any{g.pick("app", "app", "tier", "bad key").(string): g.schedValue()}
	}
	if g.chance(0.4) {
		op := g.pick("In", "NotIn", "Exists", "DoesNotExist", "Equals").(string)
		e := map[string]any{"key": g.pick("app", "tier", "version", "").(string), "operator": op}
		if op == "In" || op == "NotIn" || g.chance(0.1) {
			if g.chance(0.9) {
				e["values"] = g.values(1)
			}
		}
		s["matchExpressions"] = []any{e}
	}
	return s
}

func (g gen) podAffinityTerm() map[string]any {
	t := map[string]any{"topologyKey": g.pick("kubernetes.io/hostname", "topology.kubernetes.io/zone", "kubernetes.io/hostname", "", "bad key").(string)}
	if g.chance(0.85) {
		t["labelSelector"] = g.labelSelectorOf()
	}
	if g.chance(0.15) {
		t["namespaceSelector"] = g.labelSelectorOf()
	}
	if g.chance(0.15) {
		t["namespaces"] = []any{g.pick("default", "kube-system", "Team_A", "a.b").(string)}
	}
	if g.chance(0.2) {
		t["matchLabelKeys"] = []any{g.pick("app", "pod-template-hash", "tier", "bad key").(string)}
	}
	if g.chance(0.1) {
		t["mismatchLabelKeys"] = []any{g.pick("app", "tenant", "bad key").(string)}
	}
	return t
}

func (g gen) weightOf() int {
	if g.chance(0.85) {
		return 1 + g.r.IntN(100)
	}
	return g.pick(0, -1, 101, 1000).(int)
}

func (g gen) affinity() map[string]any {
	a := map[string]any{}
	if g.chance(0.6) {
		na := map[string]any{}
		if g.chance(0.7) {
			var terms []any
			for i := 0; i < g.pick(1, 1, 2, 0).(int); i++ {
				terms = append(terms, g.nodeTerm())
			}
			na["requiredDuringSchedulingIgnoredDuringExecution"] = map[string]any{"nodeSelectorTerms": terms}
		}
		if g.chance(0.5) {
			na["preferredDuringSchedulingIgnoredDuringExecution"] = []any{
				map[string]any{"weight": g.weightOf(), "preference": g.nodeTerm()}}
		}
		a["nodeAffinity"] = na
	}
	for _, kind := range []string{"podAffinity", "podAntiAffinity"} {
		if !g.chance(0.4) {
			continue
		}
		pa := map[string]any{}
		if g.chance(0.6) {
			pa["requiredDuringSchedulingIgnoredDuringExecution"] = []any{g.podAffinityTerm()}
		}
		if g.chance(0.5) {
			pa["preferredDuringSchedulingIgnoredDuringExecution"] = []any{
				map[string]any{"weight": g.weightOf(), "podAffinityTerm": g.podAffinityTerm()}}
		}
		a[kind] = pa
	}
	return a
}

func (g gen) toleration() map[string]any {
	t := map[string]any{}
	if g.chance(0.85) {
		t["key"] = g.pick("node.kubernetes.io/not-ready", "dedicated", "gpu", "example.com/special", "bad key").(string)
	}
	op := g.pick("Equal", "Exists", "Exists", "", "Lt", "Gt", "Equals", "exists").(string)
	if op != "" {
		t["operator"] = op
	}
	switch {
	case op == "Exists" && g.chance(0.8):
	case op == "Lt" || op == "Gt":
		t["value"] = g.pick("100", "-5", "0", "007", "abc", "99999999999999999999", "").(string)
	default:
		t["value"] = g.pick("true", "gpu", "", "fast ssd", "ok").(string)
	}
	if g.chance(0.7) {
		t["effect"] = g.pick("NoSchedule", "PreferNoSchedule", "NoExecute", "NoExecute", "Never", "").(string)
	}
	if g.chance(0.25) {
		t["tolerationSeconds"] = g.pick(0, 30, 300, -1).(int)
	}
	return t
}

func (g gen) spreadConstraint() map[string]any {
	c := map[string]any{
		"maxSkew":           g.pick(1, 1, 2, 0, -1).(int),
		"topologyKey":       g.pick("topology.kubernetes.io/zone", "kubernetes.io/hostname", "", "zone").(string),
		"whenUnsatisfiable": g.pick("DoNotSchedule", "ScheduleAnyway", "DoNotSchedule", "Never", "").(string),
	}
	if g.chance(0.8) {
		c["labelSelector"] = g.labelSelectorOf()
	}
	if g.chance(0.25) {
		c["minDomains"] = g.pick(1, 2, 3, 0, -1).(int)
	}
	if g.chance(0.15) {
		c["nodeAffinityPolicy"] = g.pick("Honor", "Ignore", "Always").(string)
	}
	if g.chance(0.15) {
		c["nodeTaintsPolicy"] = g.pick("Honor", "Ignore", "honor").(string)
	}
	if g.chance(0.2) {
		c["matchLabelKeys"] = []any{g.pick("pod-template-hash", "app", "tier", "bad key").(string)}
	}
	return c
}

// validatePodScheduling: the scheduling leg.
func (g gen) validatePodScheduling() map[string]any {
	pod, spec := g.basePod()
	if g.chance(0.4) {
		ns := map[string]any{}
		for i := 0; i < 1+g.r.IntN(2); i++ {
			ns[g.schedKey()] = g.schedValue()
		}
		spec["nodeSelector"] = ns
	}
	if g.chance(0.4) {
		spec["affinity"] = g.affinity()
	}
	if g.chance(0.35) {
		var ts []any
		for i := 0; i < 1+g.r.IntN(3); i++ {
			ts = append(ts, g.toleration())
		}
		spec["tolerations"] = ts
	}
	if g.chance(0.3) {
		var cs []any
		for i := 0; i < 1+g.r.IntN(2); i++ {
			cs = append(cs, g.spreadConstraint())
		}
		spec["topologySpreadConstraints"] = cs
	}
	if g.chance(0.15) {
		var gs []any
		for i := 0; i < 1+g.r.IntN(2); i++ {
			gs = append(gs, map[string]any{"name": g.pick("example.com/quota", "wait", "wait", "bad gate", "").(string)})
		}
		spec["schedulingGates"] = gs
	}
	if g.chance(0.1) {
		spec["readinessGates"] = []any{map[string]any{"conditionType": g.pick("example.com/ready", "Ready", "ready now", "").(string)}}
	}
	if g.chance(0.15) {
		spec["priorityClassName"] = g.pick("high-priority", "system-cluster-critical", "High", "a_b").(string)
	}
	if g.chance(0.1) {
		spec["preemptionPolicy"] = g.pick("Never", "PreemptLowerPriority", "Sometimes", "").(string)
	}
	if g.chance(0.1) {
		spec["runtimeClassName"] = g.pick("gvisor", "kata", "Kata_1", "").(string)
	}
	if g.chance(0.15) {
		spec["nodeName"] = g.pick("node-1", "ip-10-0-0-1.ec2.internal", "Node_1").(string)
	}
	if g.chance(0.15) {
		spec["serviceAccountName"] = g.pick("builder", "default", "ci.bot", "Builder!").(string)
	}
	return map[string]any{"object": pod, "featureGates": gatesOf(g.gateSet(podSchedGates))}
}

func (g gen) ipValue() string {
	if g.chance(0.8) {
		return g.pick("10.0.0.10", "8.8.8.8", "1.1.1.1", "2001:4860:4860::8888", "fd00::a").(string)
	}
	return g.pick("010.0.0.1", "::ffff:10.0.0.1", "10.0.0.300", "dns.google", "", "1.2.3", "fe80::1%eth0", "2001:db8::01").(string)
}

// validatePodDNS: the DNS and host identity leg.
func (g gen) validatePodDNS() map[string]any {
	pod, spec := g.basePod()
	containers := spec["containers"].([]any)
	if g.chance(0.3) {
		spec["dnsPolicy"] = g.pick("ClusterFirst", "Default", "None", "ClusterFirstWithHostNet", "None", "clusterfirst", "ClusterFirstWithHostNetwork").(string)
	}
	if g.chance(0.4) {
		cfg := map[string]any{}
		if g.chance(0.8) {
			var ns []any
			for i := 0; i < g.pick(1, 1, 2, 3, 4, 0).(int); i++ {
				ns = append(ns, g.ipValue())
			}
			cfg["nameservers"] = ns
		}
		if g.chance(0.5) {
			var ss []any
			for i := 0; i < 1+g.r.IntN(3); i++ {
				ss = append(ss, g.pick("default.svc.cluster.local", "svc.cluster.local.", "example.com", ".", "_srv.example.com", "My.Domain", "a..b", "-x.com").(string))
			}
			if g.chance(0.03) {
				for len(ss) < 33 {
					ss = append(ss, fmt.Sprintf("s%d.example.com", len(ss)))
				}
			}
			cfg["searches"] = ss
		}
		if g.chance(0.4) {
			o := map[string]any{"name": g.pick("ndots", "edns0", "").(string)}
			if g.chance(0.5) {
				o["value"] = "2"
			}
			cfg["options"] = []any{o}
		}
		spec["dnsConfig"] = cfg
	}
	if g.chance(0.2) {
		spec["hostname"] = g.pick("web-0", "db", "web_0", "Web", "a.b", "-x").(string)
	}
	if g.chance(0.2) {
		spec["subdomain"] = g.pick("headless", "svc-1", "my_svc", "a.b").(string)
	}
	if g.chance(0.15) {
		a := map[string]any{"ip": g.ipValue()}
		if g.chance(0.9) {
			a["hostnames"] = []any{g.pick("foo.local", "bar", "Foo.Local", "a_b").(string)}
		}
		spec["hostAliases"] = []any{a}
	}
	if g.chance(0.1) {
		spec["setHostnameAsFQDN"] = g.chance(0.7)
	}
	if g.chance(0.1) {
		spec["hostnameOverride"] = g.pick("my-host", "my.host.example", "My_Host", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa").(string)
	}
	if g.chance(0.3) {
		spec["hostNetwork"] = g.chance(0.7)
	}
	if g.chance(0.35) {
		c := containers[0].(map[string]any)
		port := map[string]any{"containerPort": g.pick(80, 8080, 443).(int)}
		if g.chance(0.5) {
			port["hostPort"] = g.pick(80, 8080, 9090).(int)
		}
		c["ports"] = []any{port}
	}
	if g.chance(0.15) {
		spec["hostPID"] = g.chance(0.7)
	}
	if g.chance(0.15) {
		spec["shareProcessNamespace"] = g.chance(0.7)
	}
	if g.chance(0.1) {
		spec["hostIPC"] = true
	}
	if g.chance(0.15) {
		spec["hostUsers"] = !g.chance(0.8)
	}
	if g.chance(0.1) {
		c := containers[len(containers)-1].(map[string]any)
		c["image"] = g.pick("nginx ", " nginx", "nginx\t", "nginx:1.27").(string)
	}
	if g.chance(0.25) {
		ann := map[string]any{}
		switch g.r.IntN(3) {
		case 0:
			ann["controller.kubernetes.io/pod-deletion-cost"] = g.pick("100", "-5", "0", "high", "+1", "007", "", "2147483648", "1.5").(string)
		case 1:
			ann["kubernetes.io/config.mirror"] = "mirror"
			if g.chance(0.5) {
				spec["nodeName"] = "node-1"
			}
		case 2:
			ann["scheduler.alpha.kubernetes.io/tolerations"] = g.pick(
				`[{"key":"k","operator":"Exists"}]`,
				`[{"key":"k","operator":"Exists","value":"v"}]`,
				`[{"key":"bad key","operator":"Equal","value":"v","effect":"Never"}]`,
				`[]`).(string)
		}
		pod["metadata"].(map[string]any)["annotations"] = ann
	}
	return map[string]any{"object": pod, "featureGates": gatesOf(g.gateSet(podDNSGates))}
}
