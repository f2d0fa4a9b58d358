package main

// Random but well-formed inputs per op. Inputs are plain JSON trees (what a vector holds), so odd
// values (unknown operators, empty strings, exit codes at the int32 edges) are easy to make; the
// upstream side decodes them into the real API types. Most inputs are valid enough that both
// sides reach the interesting parts; a share sits on or past the validation limits.

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sort"
)

type gen struct{ r *rand.Rand }

func (g gen) pick(xs ...any) any    { return xs[g.r.IntN(len(xs))] }
func (g gen) chance(p float64) bool { return g.r.Float64() < p }

// exitCode: mostly the codes that matter in practice, sometimes anything in int32.
func (g gen) exitCode() int {
	switch g.r.IntN(10) {
	case 0:
		return int(g.pick(math.MinInt32, math.MaxInt32, -1, 256, 1000).(int))
	case 1, 2:
		return g.r.IntN(300)
	default:
		return g.pick(0, 1, 2, 3, 42, 126, 127, 128, 137, 139, 143, 255).(int)
	}
}

// exitCodes: a values list; sorted and unique when valid, sometimes not, sometimes at the
// 255-value limit or past it, sometimes holding 0.
func (g gen) exitCodes(valid bool) []any {
	n := 1 + g.r.IntN(4)
	switch g.r.IntN(20) {
	case 0:
		n = 255
	case 1:
		n = 256
	case 2:
		n = 0
	}
	set := map[int]bool{}
	for len(set) < n {
		c := g.exitCode()
		if n > 10 {
			c = 1 + g.r.IntN(400)
		}
		if valid && c == 0 {
			continue
		}
		set[c] = true
	}
	vals := make([]int, 0, n)
	for c := range set {
		vals = append(vals, c)
	}
	sort.Ints(vals)
	if !valid && len(vals) > 1 && g.chance(0.5) {
		vals[0], vals[1] = vals[1], vals[0] // unsorted
	}
	if !valid && len(vals) > 0 && g.chance(0.3) {
		vals = append(vals, vals[0]) // duplicate
	}
	out := make([]any, len(vals))
	for i, v := range vals {
		out[i] = v
	}
	return out
}

var containerNames = []string{"main", "sidecar", "init", "worker", "c1"}

func (g gen) container(name string) map[string]any {
	return map[string]any{"name": name, "image": "busybox:1.36"}
}

// restartRules: restartPolicyRules of a container.
func (g gen) restartRules(valid bool) []any {
	n := g.r.IntN(4)
	if g.chance(0.05) {
		n = 20 + g.r.IntN(2)
	}
	rules := make([]any, n)
	for i := range rules {
		rule := map[string]any{"action": "Restart"}
		if g.chance(0.3) {
			rule["action"] = "RestartAllContainers"
		}
		if !valid && g.chance(0.1) {
			rule["action"] = g.pick("", "DoNotRestart", "restart")
		}
		if valid || g.chance(0.9) {
			op := g.pick("In", "NotIn").(string)
			if !valid && g.chance(0.1) {
				op = g.pick("", "Exists", "in").(string)
			}
			rule["exitCodes"] = map[string]any{"operator": op, "values": g.exitCodes(valid && op != "NotIn" || valid && g.chance(0.5))}
		}
		rules[i] = rule
	}
	return rules
}

func (g gen) podRestartPolicy(valid bool) string {
	if !valid && g.chance(0.05) {
		return g.pick("", "Sometimes").(string)
	}
	return g.pick("Always", "OnFailure", "Never").(string)
}

// restartSpec: a pod spec mixing regular, init (sidecar or not) and ephemeral containers with
// container-level restart policies and rules.
func (g gen) restartSpec(valid bool) (map[string]any, []string) {
	spec := map[string]any{"restartPolicy": g.podRestartPolicy(valid)}
	var names []string
	var cs, ics []any
	nc := 1 + g.r.IntN(2)
	nic := g.r.IntN(3)
	for i := 0; i < nc+nic; i++ {
		name := fmt.Sprintf("%s-%d", containerNames[g.r.IntN(len(containerNames))], i)
		c := g.container(name)
		init := i >= nc
		if g.chance(0.7) {
			pol := g.pick("Always", "OnFailure", "Never").(string)
			if init && g.chance(0.6) {
				pol = "Always"
			}
			if !valid && g.chance(0.1) {
				pol = g.pick("", "Sometimes").(string)
			}
			c["restartPolicy"] = pol
			if g.chance(0.7) {
				c["restartPolicyRules"] = g.restartRules(valid)
			}
		} else if !valid && g.chance(0.2) {
			c["restartPolicyRules"] = g.restartRules(valid)
		}
		names = append(names, name)
		if init {
			ics = append(ics, c)
		} else {
			cs = append(cs, c)
		}
	}
	spec["containers"] = cs
	if len(ics) > 0 {
		spec["initContainers"] = ics
	}
	return spec, names
}

func (g gen) restartGates() map[string]bool {
	return map[string]bool{"RestartAllContainersOnContainerExits": g.chance(0.5)}
}

// gatesOf is a case's featureGates: the gates drawn, less those the linked release does not
// know, with every gate that depends on a gate turned off turned off too (from 1.35 the
// components refuse a gate on whose dependencies are off, as a cluster's operator would find).
// drawGates: each named gate, where the release lets it be set, set half the time, on or off
// at random.
func (g gen) drawGates(names ...string) map[string]bool {
	gates := map[string]bool{}
	for _, name := range names {
		if set, on := g.chance(0.5), g.chance(0.5); set && settableGate(name) {
			gates[name] = on
		}
	}
	return gates
}

func gatesOf(g map[string]bool) map[string]bool {
	out := onlyKnown(g)
	deps := gateDependencies()
	for changed := true; changed; {
		changed = false
		for gate, ds := range deps {
			if !effective(out, gate) {
				continue
			}
			for _, d := range ds {
				if !effective(out, d) {
					out[gate] = false
					changed = true
					break
				}
			}
		}
	}
	return out
}

// effective: a gate's value with the case's settings over the release's defaults.
func effective(set map[string]bool, gate string) bool {
	if v, ok := set[gate]; ok {
		return v
	}
	return releaseDefaults[gate]
}

func pod(spec map[string]any) map[string]any {
	return map[string]any{"apiVersion": "v1", "kind": "Pod", "metadata": map[string]any{"name": "pod", "namespace": "default"}, "spec": spec}
}

func (g gen) containerRestart() map[string]any {
	spec, names := g.restartSpec(g.chance(0.8))
	// The kubelet reads the restart rules only with ContainerRestartRules on: both ways.
	gates := g.restartGates()
	gates["ContainerRestartRules"] = g.chance(0.8)
	return map[string]any{"pod": pod(spec), "container": names[g.r.IntN(len(names))], "exitCode": g.exitCode(), "featureGates": gatesOf(gates)}
}

func (g gen) containerRestartable() map[string]any {
	in := g.containerRestart()
	delete(in, "exitCode")
	return in
}

func (g gen) matchRestartRule() map[string]any {
	in := g.containerRestart()
	delete(in, "featureGates")
	return in
}

var conditionTypes = []any{"DisruptionTarget", "ConfigIssue", "Ready", "PodReadyToStartContainers", "CustomCondition"}

func (g gen) pfpRule(names []string, valid bool) map[string]any {
	action := g.pick("FailJob", "FailIndex", "Ignore", "Count").(string)
	if !valid && g.chance(0.05) {
		action = g.pick("", "Restart").(string)
	}
	rule := map[string]any{"action": action}
	if g.chance(0.6) {
		req := map[string]any{"operator": g.pick("In", "NotIn"), "values": g.exitCodes(valid)}
		if !valid && g.chance(0.05) {
			req["operator"] = "Exists"
		}
		if g.chance(0.4) {
			req["containerName"] = names[g.r.IntN(len(names))]
			if g.chance(0.1) {
				req["containerName"] = "other"
			}
		}
		rule["onExitCodes"] = req
	} else {
		n := 1 + g.r.IntN(3)
		if g.chance(0.05) {
			n = 0
		}
		pats := make([]any, n)
		for i := range pats {
			p := map[string]any{"type": g.pick(conditionTypes...)}
			if g.chance(0.8) {
				p["status"] = g.pick("True", "False", "Unknown")
			}
			pats[i] = p
		}
		rule["onPodConditions"] = pats
	}
	return rule
}

// podFailurePolicy: a Job with a policy and one of its failed Pods.
func (g gen) podFailurePolicy() map[string]any {
	valid := g.chance(0.8)
	nc, nic := 1+g.r.IntN(2), g.r.IntN(3)
	var names []string
	var cs, ics []any
	for i := 0; i < nc+nic; i++ {
		name := fmt.Sprintf("%s-%d", containerNames[g.r.IntN(len(containerNames))], i)
		names = append(names, name)
		c := g.container(name)
		if i >= nc {
			if g.chance(0.4) {
				c["restartPolicy"] = "Always"
			}
			ics = append(ics, c)
		} else {
			cs = append(cs, c)
		}
	}
	tmpl := map[string]any{"restartPolicy": "Never", "containers": cs}
	if len(ics) > 0 {
		tmpl["initContainers"] = ics
	}
	nr := g.r.IntN(5)
	if g.chance(0.05) {
		nr = 20 + g.r.IntN(2)
	}
	rules := make([]any, nr)
	for i := range rules {
		rules[i] = g.pfpRule(names, valid)
	}
	jobSpec := map[string]any{"template": map[string]any{"spec": tmpl}, "podFailurePolicy": map[string]any{"rules": rules}}
	if g.chance(0.3) {
		jobSpec["completionMode"] = "Indexed"
		jobSpec["completions"] = 3
		jobSpec["backoffLimitPerIndex"] = 1
	}
	if g.chance(0.05) {
		delete(jobSpec, "podFailurePolicy")
	}
	job := map[string]any{"apiVersion": "batch/v1", "kind": "Job", "metadata": map[string]any{"name": "job", "namespace": "default"}, "spec": jobSpec}

	status := map[string]any{"phase": "Failed"}
	statusList := func(from int, to int) []any {
		var out []any
		for i := from; i < to; i++ {
			if g.chance(0.15) {
				continue // no status for this container yet
			}
			st := map[string]any{"name": names[i]}
			switch g.r.IntN(10) {
			case 0:
				st["state"] = map[string]any{"running": map[string]any{}}
			case 1:
				st["state"] = map[string]any{"waiting": map[string]any{"reason": "ContainerCreating"}}
			case 2:
				st["state"] = map[string]any{}
			default:
				st["state"] = map[string]any{"terminated": map[string]any{"exitCode": g.exitCode(), "reason": "Error"}}
			}
			out = append(out, st)
		}
		if len(out) > 1 && g.chance(0.2) {
			out[0], out[1] = out[1], out[0]
		}
		return out
	}
	if s := statusList(0, nc); len(s) > 0 {
		status["containerStatuses"] = s
	}
	if s := statusList(nc, nc+nic); len(s) > 0 {
		status["initContainerStatuses"] = s
	}
	if g.chance(0.6) {
		var conds []any
		for range 1 + g.r.IntN(3) {
			conds = append(conds, map[string]any{"type": g.pick(conditionTypes...), "status": g.pick("True", "False", "Unknown")})
		}
		status["conditions"] = conds
	}
	p := map[string]any{"apiVersion": "v1", "kind": "Pod", "metadata": map[string]any{"name": "job-abc12", "namespace": "default"}, "spec": tmpl, "status": status}
	return map[string]any{"job": job, "pod": p}
}

// validatePod: a Pod to create, focused on restart fields; ephemeral containers now and then.
func (g gen) validatePod() map[string]any {
	spec, _ := g.restartSpec(g.chance(0.6))
	if g.chance(0.05) {
		e := map[string]any{"name": "debugger", "image": "busybox:1.36"}
		if g.chance(0.5) {
			e["restartPolicy"] = "Never"
		}
		spec["ephemeralContainers"] = []any{e}
	}
	gates := g.restartGates()
	gates["ContainerRestartRules"] = g.chance(0.8)
	if !gates["ContainerRestartRules"] {
		gates["RestartAllContainersOnContainerExits"] = false // it depends on ContainerRestartRules
	}
	return map[string]any{"object": pod(spec), "featureGates": gatesOf(gates)}
}

// validateJob: a Job to create, focused on its podFailurePolicy and the template's restart
// fields.
func (g gen) validateJob() map[string]any {
	in := g.podFailurePolicy()
	job := in["job"].(map[string]any)
	job["metadata"].(map[string]any)["uid"] = "1a2b3c"
	spec := job["spec"].(map[string]any)
	tmpl := spec["template"].(map[string]any)["spec"].(map[string]any)
	if g.chance(0.1) {
		tmpl["restartPolicy"] = g.pick("OnFailure", "Always").(string)
	}
	if g.chance(0.1) {
		spec["backoffLimit"] = g.pick(0, 6, -1)
	}
	g.addSuccessPolicy(spec) // workloads.go
	if g.chance(0.05) {
		tmpl["activeDeadlineSeconds"] = g.activeDeadline()
	}
	if g.chance(0.16) {
		// A selector of the user's own (workload_specs.go's shapes), manual or to be completed by
		// the Job strategy, with labels on the template or not.
		if g.chance(0.5) {
			spec["manualSelector"] = true
		}
		if s := g.selectorValue(); s != nil {
			spec["selector"] = s
		}
		if l := g.labelSet(); l != nil {
			spec["template"].(map[string]any)["metadata"] = map[string]any{"labels": l}
		}
	}
	gates := g.restartGates()
	gates["ContainerRestartRules"] = g.chance(0.8)
	if !gates["ContainerRestartRules"] {
		gates["RestartAllContainersOnContainerExits"] = false // it depends on ContainerRestartRules
	}
	if g.chance(0.2) {
		spec["managedBy"] = g.managedByValue() // managedby.go
		if settableGate("JobManagedBy") && g.chance(0.3) {
			gates["JobManagedBy"] = g.chance(0.7)
		}
	}
	return map[string]any{"object": job, "featureGates": gatesOf(gates)}
}

// statusTransition: a status update that may move containers from terminated back to running.
func (g gen) statusTransition() map[string]any {
	spec, _ := g.restartSpec(true)
	var oldS, newS []any
	for _, c := range spec["containers"].([]any) {
		name := c.(map[string]any)["name"]
		if g.chance(0.8) {
			oldS = append(oldS, map[string]any{"name": name, "state": map[string]any{"terminated": map[string]any{"exitCode": g.exitCode()}}})
		} else {
			oldS = append(oldS, map[string]any{"name": name, "state": map[string]any{"running": map[string]any{}}})
		}
		if g.chance(0.7) {
			newS = append(newS, map[string]any{"name": name, "state": map[string]any{"running": map[string]any{}}})
		} else {
			newS = append(newS, map[string]any{"name": name, "state": map[string]any{"waiting": map[string]any{"reason": "CrashLoopBackOff"}}})
		}
	}
	gates := map[string]bool{"ContainerRestartRules": true, "RestartAllContainersOnContainerExits": true}
	return map[string]any{"pod": pod(spec), "oldContainerStatuses": oldS, "newContainerStatuses": newS, "featureGates": gatesOf(gates)}
}
