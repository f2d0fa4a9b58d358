package main

import "fmt"

// probeGates: the gates the validate(Pod probes) leg varies, each on with its probability (a
// gate the linked release locks or does not know is left to its default).
var probeGates = []struct {
	name string
	p    float64
}{
	{"ContainerStopSignals", 0.6},
	{"H2CContainerProbe", 0.6},
	{"GRPCContainerProbeTLS", 0.6},
	{"PodLifecycleSleepAction", 0.85},
	{"PodLifecycleSleepActionAllowZero", 0.6},
}

// validatePodProbes: a Pod to create whose containers carry probes and lifecycle handlers,
// mostly valid, with the mistakes people make: two handlers or none, successThreshold 3 on a
// liveness probe, a readiness probe with terminationGracePeriodSeconds, negative thresholds,
// preStop without a handler, a sleep longer than the grace period, bad ports, schemes and header
// names, a stop signal without spec.os, probes on init containers that are not sidecars.
func (g gen) validatePodProbes() map[string]any {
	spec := map[string]any{"restartPolicy": g.pick("Always", "OnFailure", "Never")}
	if g.chance(0.3) {
		spec["terminationGracePeriodSeconds"] = g.pick(0, 1, 5, 30, 60)
	}
	switch {
	case g.chance(0.25):
		spec["os"] = map[string]any{"name": "linux"}
	case g.chance(0.15):
		spec["os"] = map[string]any{"name": "windows"}
	}
	var cs, ics []any
	for i := 0; i < 1+g.r.IntN(2); i++ {
		cs = append(cs, g.probedContainer(fmt.Sprintf("c%d", i)))
	}
	for i := 0; i < g.r.IntN(3); i++ {
		c := g.probedContainer(fmt.Sprintf("i%d", i))
		if g.chance(0.65) {
			c["restartPolicy"] = "Always"
		} else if g.chance(0.8) {
			// Mostly, an init container that is no sidecar has none of them (now and then one
			// does: Forbidden).
			for _, k := range []string{"livenessProbe", "readinessProbe", "startupProbe", "lifecycle"} {
				delete(c, k)
			}
		}
		ics = append(ics, c)
	}
	spec["containers"] = cs
	if len(ics) > 0 {
		spec["initContainers"] = ics
	}
	gates := map[string]bool{}
	for _, pg := range probeGates {
		on := g.chance(pg.p) // drawn at every minor, so a seed's cases stay the same
		if settableGate(pg.name) {
			gates[pg.name] = on
		}
	}
	return map[string]any{"object": pod(spec), "featureGates": gatesOf(gates)}
}

func (g gen) probedContainer(name string) map[string]any {
	c := g.container(name)
	valid := g.chance(0.65)
	for _, k := range []string{"livenessProbe", "readinessProbe", "startupProbe"} {
		if g.chance(0.45) {
			c[k] = g.probe(k, valid || g.chance(0.6))
		}
	}
	if g.chance(0.45) {
		c["lifecycle"] = g.lifecycle(valid || g.chance(0.6))
	}
	return c
}

// probePort: an IntOrString port, or a mistake.
func (g gen) probePort(valid bool) any {
	if !valid && g.chance(0.3) {
		return g.pick(0, -1, 70000, "HTTP", "http_port", "a-very-long-port-name", "8080", "")
	}
	return g.pick(80, 8080, "http", "metrics")
}

func (g gen) httpGet(valid bool) map[string]any {
	h := map[string]any{"port": g.probePort(valid)}
	if g.chance(0.6) {
		h["path"] = g.pick("/healthz", "/", "/ready")
	}
	if g.chance(0.3) {
		h["scheme"] = g.pick("HTTP", "HTTPS")
		if !valid && g.chance(0.3) {
			h["scheme"] = g.pick("https", "FTP")
		}
	}
	if g.chance(0.2) {
		hs := []any{map[string]any{"name": "X-Probe", "value": "1"}}
		if !valid && g.chance(0.4) {
			hs = append(hs, map[string]any{"name": g.pick("X Probe", "", "X_Probe", "Host:"), "value": "v"})
		}
		h["httpHeaders"] = hs
	}
	if g.chance(0.15) {
		h["host"] = g.pick("", "localhost")
	}
	if g.chance(0.2) {
		h["protocol"] = g.pick("HTTP1", "HTTP2", "h2c")
	}
	return h
}

// handler: one action of a probe (grpc) or a lifecycle hook (sleep), sometimes two or none.
func (g gen) handler(lifecycle, valid bool) map[string]any {
	kinds := []string{"exec", "httpGet", "tcpSocket", "grpc"}
	if lifecycle {
		kinds[3] = "sleep"
	}
	n := 1
	if !valid && g.chance(0.35) {
		n = g.pick(0, 2, 2, 3).(int)
	}
	h := map[string]any{}
	for _, i := range g.r.Perm(4)[:n] {
		switch k := kinds[i]; k {
		case "exec":
			cmd := []any{"/bin/check"}
			if !valid && g.chance(0.3) {
				cmd = []any{}
			}
			if g.chance(0.1) {
				h[k] = map[string]any{}
			} else {
				h[k] = map[string]any{"command": cmd}
			}
		case "httpGet":
			h[k] = g.httpGet(valid)
		case "tcpSocket":
			h[k] = map[string]any{"port": g.probePort(valid)}
		case "grpc":
			gr := map[string]any{"port": g.pick(9090, 50051)}
			if !valid && g.chance(0.3) {
				gr["port"] = g.pick(0, 70000)
			}
			if g.chance(0.2) {
				gr["service"] = "health"
			}
			if g.chance(0.25) {
				gr["mode"] = g.pick("Plaintext", "TLS", "mTLS")
			}
			h[k] = gr
		case "sleep":
			s := g.pick(1, 5, 10)
			if !valid || g.chance(0.2) {
				s = g.pick(0, 0, -1, 29, 30, 31, 120)
			}
			h[k] = map[string]any{"seconds": s}
		}
	}
	return h
}

func (g gen) probe(kind string, valid bool) map[string]any {
	p := g.handler(false, valid)
	num := func(key string, vals ...any) {
		if g.chance(0.35) {
			p[key] = g.pick(vals...)
		}
	}
	num("initialDelaySeconds", 0, 5, 30)
	num("timeoutSeconds", 0, 1, 5)
	num("periodSeconds", 0, 10, 15)
	num("failureThreshold", 0, 3, 30)
	if kind == "readinessProbe" {
		num("successThreshold", 0, 1, 2)
	} else {
		num("successThreshold", 0, 1)
	}
	if !valid && g.chance(0.5) {
		key := g.pick("initialDelaySeconds", "timeoutSeconds", "periodSeconds", "successThreshold", "failureThreshold").(string)
		p[key] = g.pick(-1, -10, 3)
	}
	if kind != "readinessProbe" && g.chance(0.15) || !valid && g.chance(0.15) {
		p["terminationGracePeriodSeconds"] = g.pick(10, 60, 0, -1)
	}
	return p
}

func (g gen) lifecycle(valid bool) map[string]any {
	lc := map[string]any{}
	if g.chance(0.5) {
		lc["postStart"] = g.handler(true, valid)
	}
	if g.chance(0.6) {
		lc["preStop"] = g.handler(true, valid)
	}
	if g.chance(0.25) {
		s := g.pick("SIGTERM", "SIGKILL", "SIGINT", "SIGRTMIN+1")
		if !valid && g.chance(0.4) {
			s = g.pick("SIGFOO", "", "sigterm", "SIGRTMAX-15")
		}
		lc["stopSignal"] = s
	}
	return lc
}
