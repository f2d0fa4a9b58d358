package main

import "strings"

// The validate(Pod resources) leg: Pods (and now and then a Job) whose containers carry
// resources and resize policies, mostly valid, with the mistakes people make: requests above
// limits, `gpu` or `GPU` for a resource name, nvidia.com/gpu with requests unlike its limits or
// fractional, hugepages-2Mi alone or not a multiple of the page, negative quantities, a
// resizePolicy naming cpu twice or `gpu`, RestartContainer under restartPolicy Never, a
// negative overhead; pod-level resources with PodLevelResources off (dropped) and on (defaults,
// names, claims, the containers' aggregate, a Windows Pod); DRA's spec.resourceClaims and the
// containers' resources.claims with DynamicResourceAllocation on and off, on a static Pod now and
// then. Through the minor's real create path (admitPod / admitJob, then the strategy's
// Validate); every message is compared.

func (g gen) resQuantity(name string, valid bool) any {
	if !valid && g.chance(0.25) {
		return g.pick("-1", "-500m", "-0.5", "-1Gi", "1.5", "0.3", "2.5", "3Mi", "100m", "1.9999", "0.0001")
	}
	switch {
	case name == "cpu":
		return g.pick("100m", "250m", "500m", "1", "2", "0.5", "1.5", 1, 2, 0.5, "1000m", "4", "+1", "1e3", "2000m", "0.25")
	case name == "memory" || name == "ephemeral-storage":
		return g.pick("64Mi", "128Mi", "256Mi", "512Mi", "1Gi", "2Gi", "1G", "500M", "1024Mi", "1.5Gi", "0.5Gi", "100Ki", "1e9", "134217728")
	case name == "hugepages-2Mi":
		return g.pick("2Mi", "4Mi", "10Mi", "100Mi", "1Gi")
	case name == "hugepages-1Gi":
		return g.pick("1Gi", "2Gi", "1024Mi")
	default:
		return g.pick(1, 2, "1", "4", 8, "0")
	}
}

func (g gen) resName(valid bool) string {
	if !valid && g.chance(0.3) {
		return g.oneOf("gpu", "GPU", "nvidia.com/", "my_resource", "a/b/c", "storage", "pods", "requests.cpu",
			"kubernetes.io/foo", "requests.example.com/foo", "hugepages-", "hugepages-abc", "hugepages-3", "Example.com/Foo", "example.com/foo_bar", "-bad/x")
	}
	return g.oneOf("cpu", "cpu", "memory", "memory", "ephemeral-storage", "nvidia.com/gpu", "example.com/foo", "hugepages-2Mi", "hugepages-1Gi")
}

func (g gen) resources(valid bool) map[string]any {
	limits := map[string]any{}
	requests := map[string]any{}
	overcommit := func(name string) bool { return name == "cpu" || name == "memory" || name == "ephemeral-storage" }
	for i := g.r.IntN(4); i > 0; i-- {
		name := g.resName(valid)
		q := g.resQuantity(name, valid)
		switch {
		case !overcommit(name) && (valid || g.chance(0.7)):
			// Extended resources and hugepages: a limit, now and then the equal request too,
			// and hugepages beside memory.
			limits[name] = q
			if g.chance(0.4) {
				requests[name] = q
			}
			if len(name) > 10 && name[:10] == "hugepages-" && (valid || g.chance(0.6)) {
				limits["memory"] = g.resQuantity("memory", true)
			}
		case g.chance(0.5):
			limits[name] = q
			if g.chance(0.6) {
				if !valid && g.chance(0.4) {
					requests[name] = g.resQuantity(name, false)
				} else {
					requests[name] = g.resQuantity(name, true)
				}
			}
		case g.chance(0.3):
			limits[name] = q
		default:
			requests[name] = q
		}
	}
	r := map[string]any{}
	if len(limits) > 0 || g.chance(0.1) {
		r["limits"] = limits
	}
	if len(requests) > 0 || g.chance(0.1) {
		r["requests"] = requests
	}
	return r
}

func (g gen) resizePolicy(valid bool) []any {
	var out []any
	for _, res := range []string{"cpu", "memory"} {
		if g.chance(0.6) {
			out = append(out, map[string]any{"resourceName": res, "restartPolicy": g.oneOf("NotRequired", "NotRequired", "RestartContainer")})
		}
	}
	if !valid && g.chance(0.5) {
		switch g.r.IntN(4) {
		case 0:
			out = append(out, map[string]any{"resourceName": "cpu", "restartPolicy": "NotRequired"})
		case 1:
			out = append(out, map[string]any{"resourceName": g.oneOf("gpu", "", "ephemeral-storage"), "restartPolicy": "NotRequired"})
		case 2:
			out = append(out, map[string]any{"resourceName": "memory", "restartPolicy": g.oneOf("", "Always", "restartContainer")})
		default:
			out = append(out, map[string]any{"resourceName": "cpu"})
		}
	}
	return out
}

func (g gen) validatePodResources() map[string]any {
	valid := g.chance(0.5)
	spec, _ := g.restartSpec(true)
	for _, l := range []string{"containers", "initContainers"} {
		cs, _ := spec[l].([]any)
		for _, c := range cs {
			c := c.(map[string]any)
			if g.chance(0.8) {
				c["resources"] = g.resources(valid || g.chance(0.5))
			}
			if g.chance(0.3) {
				c["resizePolicy"] = g.resizePolicy(valid || g.chance(0.5))
			}
		}
	}
	if g.chance(0.05) {
		e := map[string]any{"name": "debugger", "image": "busybox:1.36"}
		if g.chance(0.5) {
			e["resources"] = g.resources(valid)
		}
		if g.chance(0.3) {
			e["resizePolicy"] = g.resizePolicy(valid)
		}
		spec["ephemeralContainers"] = []any{e}
	}
	if g.chance(0.1) {
		spec["overhead"] = map[string]any{"cpu": g.resQuantity("cpu", valid), "memory": g.resQuantity("memory", valid)}
	}
	gates := map[string]bool{
		"InPlacePodVerticalScaling": g.chance(0.7),
		"ContainerRestartRules":     true,
	}
	if settableGate("PodLevelResources") {
		on := g.chance(0.6)
		gates["PodLevelResources"] = on
		if g.chance(0.4) {
			spec["resources"] = g.podLevelResources(valid)
		}
		gates["PodLevelResourcesFixDefaulting"] = on && g.chance(0.7)
		if !on {
			// The gates that depend on it must be off too, or the gate set is refused.
			gates["InPlacePodLevelResourcesVerticalScaling"] = false
			gates["PodLevelResourcesFixKubeletQOSClass"] = false
		}
		if g.chance(0.04) {
			spec["os"] = map[string]any{"name": "windows"}
		}
	}
	claimed := g.chance(0.3)
	if claimed {
		spec["resourceClaims"] = g.podResourceClaims(valid)
		for _, l := range []string{"containers", "initContainers"} {
			cs, _ := spec[l].([]any)
			for _, c := range cs {
				c := c.(map[string]any)
				if g.chance(0.5) {
					r, _ := c["resources"].(map[string]any)
					if r == nil {
						r = map[string]any{}
						c["resources"] = r
					}
					r["claims"] = g.containerClaims(valid)
				}
			}
		}
	}
	if settableGate("DynamicResourceAllocation") {
		gates["DynamicResourceAllocation"] = g.chance(0.7)
	}
	set := map[string]bool{}
	for k, v := range gates {
		if settableGate(k) {
			set[k] = v
		}
	}
	obj := g.wrapSpec(spec)
	if claimed && obj["kind"] == "Pod" && g.chance(0.1) {
		// A static Pod's mirror: from 1.32 it may carry no claims.
		spec["nodeName"] = "node-1"
		obj["metadata"].(map[string]any)["annotations"] = map[string]any{"kubernetes.io/config.mirror": "mirror"}
	}
	return map[string]any{"object": obj, "featureGates": gatesOf(set)}
}

// podLevelResources: spec.resources of the Pod: cpu, memory and hugepages mostly, now and then a
// resource pod-level resources do not take, requests above limits, or claims.
func (g gen) podLevelResources(valid bool) map[string]any {
	r := map[string]any{}
	pick := func() string {
		if !valid && g.chance(0.3) {
			return g.oneOf("ephemeral-storage", "nvidia.com/gpu", "gpu", "hugepages-2Mi", "storage")
		}
		return g.oneOf("cpu", "cpu", "memory", "memory", "hugepages-2Mi")
	}
	for _, list := range []string{"limits", "requests"} {
		if g.chance(0.6) {
			m := map[string]any{}
			for i := 1 + g.r.IntN(2); i > 0; i-- {
				name := pick()
				m[name] = g.resQuantity(name, valid || g.chance(0.7))
			}
			r[list] = m
		}
	}
	if !valid && g.chance(0.1) {
		r["claims"] = []any{map[string]any{"name": g.oneOf("gpu", "other")}}
	}
	return r
}

// podResourceClaims: spec.resourceClaims, each from a claim or a template, with the mistakes:
// both or neither source, a name twice, names that are no DNS label or subdomain.
func (g gen) podResourceClaims(valid bool) []any {
	var out []any
	for i := 1 + g.r.IntN(2); i > 0; i-- {
		name := g.oneOf("gpu", "nic", "tpu")
		if !valid && g.chance(0.15) {
			name = g.oneOf("", "GPU", "a.b", strings.Repeat("x", 64))
		}
		c := map[string]any{"name": name}
		switch {
		case !valid && g.chance(0.15):
		case !valid && g.chance(0.15):
			c["resourceClaimName"] = "shared"
			c["resourceClaimTemplateName"] = "tmpl"
		case g.chance(0.5):
			c["resourceClaimName"] = g.oneOf("shared-gpu", "claim-1", "Bad_Claim")
		default:
			c["resourceClaimTemplateName"] = g.oneOf("gpu-template", "single.gpu", "-bad")
		}
		out = append(out, c)
	}
	return out
}

// containerClaims: a container's resources.claims, naming the Pod's claims (or not), a
// request now and then, twice now and then.
func (g gen) containerClaims(valid bool) []any {
	var out []any
	for i := 1 + g.r.IntN(2); i > 0; i-- {
		c := map[string]any{"name": g.oneOf("gpu", "nic", "tpu")}
		if !valid && g.chance(0.1) {
			c["name"] = g.oneOf("", "missing")
		}
		if g.chance(0.3) {
			c["request"] = g.oneOf("big", "small", "Bad")
		}
		out = append(out, c)
	}
	return out
}
