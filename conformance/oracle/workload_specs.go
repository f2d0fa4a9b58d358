package main

// The workload specs leg: the controllers' own spec fields (selectors and their match with the
// template's labels, update strategies, replicas and the other counters, a StatefulSet's
// policies, service name and ordinals, a CronJob's schedule, time zone, concurrency policy and
// history limits) with a simple valid Pod template. Unlike the workloads leg, restartkit is given
// the object as written, not as admitted: its own v1 defaulting is part of what is compared.
// Upstream is the same create path (upstreamWorkload: decode, v1 defaulting, PrepareForCreate,
// the strategy's Validate).

// labelSets: template labels and selector labels, matching or not, empty or absent.
func (g gen) labelSet() any {
	return g.pick(
		map[string]any{"app": "w"},
		map[string]any{"app": "w", "tier": "web"},
		map[string]any{"app": "x"},
		map[string]any{},
		nil,
	)
}

func (g gen) selectorValue() any {
	switch g.r.IntN(12) {
	case 0:
		return nil
	case 1:
		return map[string]any{}
	case 2:
		return map[string]any{"matchLabels": map[string]any{}}
	case 3:
		return map[string]any{"matchLabels": map[string]any{"app": g.pick("-bad", "w", "x").(string)}}
	case 4:
		return map[string]any{"matchLabels": map[string]any{g.pick("bad key", "app", "example.com/app").(string): "w"}}
	case 5, 6:
		expr := map[string]any{
			"key":      g.pick("app", "tier", "bad key", "").(string),
			"operator": g.pick("In", "NotIn", "Exists", "DoesNotExist", "Has").(string),
		}
		switch g.r.IntN(4) {
		case 0:
		case 1:
			expr["values"] = []any{}
		case 2:
			expr["values"] = []any{"w"}
		default:
			expr["values"] = []any{g.pick("web", "db", "-x").(string), "w"}
		}
		s := map[string]any{"matchExpressions": []any{expr}}
		if g.chance(0.4) {
			s["matchLabels"] = g.labelSet()
		}
		return s
	default:
		l := g.labelSet()
		if l == nil {
			return map[string]any{"matchLabels": map[string]any{"app": "w"}}
		}
		return map[string]any{"matchLabels": l}
	}
}

// workloadContainer: a container whose common fields (validateContainerCommon: name, image, ports,
// pull and termination message policies) are mostly valid, sometimes not.
func (g gen) workloadContainer() map[string]any {
	c := map[string]any{"name": "c", "image": "busybox:1.36"}
	if g.chance(0.15) {
		c["name"] = g.pick("", "Web_Server", "c", "a.b", "x1234567890123456789012345678901234567890123456789012345678901234")
	}
	if g.chance(0.1) {
		c["image"] = g.pick("", "busybox", "busybox@sha256:0123456789012345678901234567890123456789012345678901234567890123")
	}
	g.maybe(c, "imagePullPolicy", func() any {
		if g.chance(0.7) {
			return nil
		}
		return g.pick("Always", "IfNotPresent", "Never", "Sometimes")
	})
	g.maybe(c, "terminationMessagePolicy", func() any {
		if g.chance(0.7) {
			return nil
		}
		return g.pick("File", "FallbackToLogsOnError", "Logs")
	})
	if g.chance(0.3) {
		var ports []any
		for range 1 + g.r.IntN(3) {
			p := map[string]any{"containerPort": g.pick(80, 8080, 0, -1, 65536)}
			g.maybe(p, "name", func() any {
				return g.pick("http", "http", "8080", "HTTP", "a--b", "-a", "abcdefghijklmnop")
			})
			g.maybe(p, "protocol", func() any { return g.pick("TCP", "UDP", "SCTP", "tcp") })
			if g.chance(0.1) {
				p["hostPort"] = g.pick(80, 70000, -5)
			}
			ports = append(ports, p)
		}
		c["ports"] = ports
	}
	return c
}

// intOrPercent: the values maxUnavailable and maxSurge see.
func (g gen) intOrPercent() any {
	return g.pick(0, 1, 3, -1, "0%", "25%", "100%", "150%", "abc", "5", "%", "99999999999999999999%")
}

func (g gen) counter() any { return g.pick(-1, 0, 1, 3, 600, 700) }

// maybe sets m[k] from f about half the time.
func (g gen) maybe(m map[string]any, k string, f func() any) {
	if g.chance(0.5) {
		if v := f(); v != nil {
			m[k] = v
		}
	}
}

// strategy: an update strategy with a type from `types` and, now and then, a rollingUpdate with
// some of `keys` set.
func (g gen) strategy(types []any, keys ...string) func() any {
	return func() any {
		s := map[string]any{}
		g.maybe(s, "type", func() any { return g.pick(types...) })
		g.maybe(s, "rollingUpdate", func() any {
			r := map[string]any{}
			for _, k := range keys {
				if k == "partition" {
					g.maybe(r, k, g.counter)
				} else {
					g.maybe(r, k, g.intOrPercent)
				}
			}
			return r
		})
		return s
	}
}

func (g gen) cronSchedule() any {
	return g.pick(
		"*/5 * * * *", "0 0 * * SUN", "@daily", "@hourly", "@every 1h30m", "@every 5", "@every -1s", "@sometimes", "@daily ",
		"", " ", "foo", "* * * *", "* * * * * *", "60 * * * *", "* 24 * * *", "* * 0 * *", "* * * 13 *", "* * * * 7",
		"5-1 * * * *", "*/0 * * * *", "1-2-3 * * * *", "1/2/3 * * * *", "x * * * *", "-1 * * * *", "*-5 * * * *",
		"1,,2 * * * *", ", * * * *", "0 0 1 jan-MAR ?", "0 0 * * mon-fri", "99999999999999999999 * * * *", "+5 * * * *",
		"TZ=UTC 0 0 * * *", "CRON_TZ=Europe/Berlin 0 0 * * *", "TZ=Mars/Olympus 0 0 * * *", "TZ=0", "TZ=../x 0 * * * *",
		"0\t0 * * *\n*",
	)
}

func (g gen) timeZone() any {
	return g.pick(nil, nil, "", "Europe/Berlin", "UTC", "Local", "local", "Mars/Olympus", "bad zone", "Etc/GMT+5",
		"../x", "America/Argentina/Buenos_Aires", "Abcdefghijklmno/X", "-Europe", "Europe//Berlin", "/UTC")
}

func (g gen) validateWorkloadSpec() map[string]any {
	kinds := []string{"Deployment", "ReplicaSet", "StatefulSet", "DaemonSet", "ReplicationController", "CronJob"}
	kind := kinds[g.r.IntN(len(kinds))]
	podSpec := map[string]any{"containers": []any{g.workloadContainer()}}
	if g.chance(0.2) {
		podSpec["initContainers"] = []any{g.workloadContainer()}
	}
	template := map[string]any{"spec": podSpec}
	if l := g.labelSet(); l != nil {
		template["metadata"] = map[string]any{"labels": l}
	}
	spec := map[string]any{}
	switch kind {
	case "CronJob":
		podSpec["restartPolicy"] = "Never"
		if s := g.cronSchedule(); s != "" || g.chance(0.5) {
			spec["schedule"] = s
		}
		g.maybe(spec, "timeZone", g.timeZone)
		g.maybe(spec, "concurrencyPolicy", func() any { return g.pick("Allow", "Forbid", "Replace", "Sometimes") })
		g.maybe(spec, "startingDeadlineSeconds", g.counter)
		g.maybe(spec, "successfulJobsHistoryLimit", g.counter)
		g.maybe(spec, "failedJobsHistoryLimit", g.counter)
		js := map[string]any{"template": template}
		if g.chance(0.1) {
			js["selector"] = g.selectorValue()
		}
		if g.chance(0.1) {
			js["manualSelector"] = g.chance(0.5)
		}
		spec["jobTemplate"] = map[string]any{"spec": js}
	case "ReplicationController":
		if g.chance(0.8) {
			spec["template"] = template
		}
		g.maybe(spec, "selector", g.labelSet)
		g.maybe(spec, "replicas", g.counter)
		g.maybe(spec, "minReadySeconds", g.counter)
	default:
		spec["template"] = template
		if g.chance(0.9) {
			if s := g.selectorValue(); s != nil {
				spec["selector"] = s
			}
		}
		g.maybe(spec, "minReadySeconds", g.counter)
		if kind != "DaemonSet" {
			g.maybe(spec, "replicas", g.counter)
		}
	}
	switch kind {
	case "Deployment":
		g.maybe(spec, "revisionHistoryLimit", g.counter)
		g.maybe(spec, "progressDeadlineSeconds", g.counter)
		g.maybe(spec, "strategy", g.strategy([]any{"Recreate", "RollingUpdate", "Bogus"}, "maxUnavailable", "maxSurge"))
	case "DaemonSet":
		g.maybe(spec, "revisionHistoryLimit", g.counter)
		g.maybe(spec, "templateGeneration", g.counter)
		g.maybe(spec, "updateStrategy", g.strategy([]any{"OnDelete", "RollingUpdate", "Bogus"}, "maxUnavailable", "maxSurge"))
	case "StatefulSet":
		g.maybe(spec, "podManagementPolicy", func() any { return g.pick("OrderedReady", "Parallel", "Bogus") })
		g.maybe(spec, "serviceName", func() any {
			return g.pick("svc", "a.b", "Bad_Name", "x123456789012345678901234567890123456789012345678901234567890abcd")
		})
		g.maybe(spec, "ordinals", func() any { return map[string]any{"start": g.pick(-1, 0, 3)} })
		g.maybe(spec, "persistentVolumeClaimRetentionPolicy", func() any {
			p := map[string]any{}
			g.maybe(p, "whenDeleted", func() any { return g.pick("Retain", "Delete", "Bogus") })
			g.maybe(p, "whenScaled", func() any { return g.pick("Retain", "Delete", "Bogus") })
			return p
		})
		g.maybe(spec, "updateStrategy", g.strategy([]any{"OnDelete", "RollingUpdate", "Recreate", "Bogus"}, "partition", "maxUnavailable"))
	}
	obj := map[string]any{"apiVersion": workloadKinds[kind].apiVersion, "kind": kind,
		"metadata": map[string]any{"name": "w", "namespace": "default"}, "spec": spec}
	gates := map[string]bool{}
	if g.chance(0.5) {
		gates["MaxUnavailableStatefulSet"] = g.chance(0.5)
	}
	return map[string]any{"object": obj, "featureGates": gatesOf(gates)}
}
