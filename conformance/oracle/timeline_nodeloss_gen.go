package main

// Generated node-loss scenarios (issue 28 part 3): Jobs whose Pods lose their node, with and
// without a podFailurePolicy (DisruptionTarget rules: Ignore, FailJob, Count, FailIndex),
// podReplacementPolicy Failed, the Pods' own tolerations, grace periods, the `nodeLoss` block
// (Node deleted / out-of-service taint after the loss, non-default grace and monitor periods) and
// several losses close together (the NoExecute tainter's 0.1 node/s rate limit). They draw from a
// stream of their own: the other families' scenarios of a seed do not change.

import (
	"flag"
	"fmt"
	"strings"
)

var flagTimelineNodeLossN = flag.Int("timeline-nodeloss-n", 100, "generated node-loss Job scenarios for the timeline leg (real node lifecycle, taint eviction and Pod GC controllers), after the other timeline scenarios")

func (g gen) nodeLossTimelineScenario(i int) *tlScenario {
	fam := []string{"nodeLoss"}
	indexed := g.chance(0.6)
	completions := 1 + g.r.IntN(3)
	parallelism := 1 + g.r.IntN(completions)
	spec := map[string]any{"completions": completions, "parallelism": parallelism}
	if indexed {
		spec["completionMode"] = "Indexed"
		fam = append(fam, "Indexed")
	} else {
		fam = append(fam, "NonIndexed")
	}
	perIndex := indexed && g.chance(0.2)
	if perIndex {
		spec["backoffLimitPerIndex"] = g.r.IntN(3)
		fam = append(fam, "backoffLimitPerIndex")
	} else {
		spec["backoffLimit"] = g.r.IntN(5)
		fam = append(fam, "backoffLimit")
	}
	hasPFP := g.chance(0.5)
	if hasPFP {
		actions := []string{"Ignore", "FailJob", "Count"}
		if perIndex {
			actions = append(actions, "FailIndex")
		}
		a := actions[g.r.IntN(len(actions))]
		rules := []any{map[string]any{"action": a, "onPodConditions": []any{map[string]any{"type": "DisruptionTarget"}}}}
		fam = append(fam, "podFailurePolicy:DisruptionTarget:"+a)
		if g.chance(0.3) {
			rules = append(rules, map[string]any{"action": "FailJob", "onExitCodes": map[string]any{"operator": "In", "values": []int{42}}})
		}
		spec["podFailurePolicy"] = map[string]any{"rules": rules}
	}
	switch {
	case g.chance(0.3):
		spec["podReplacementPolicy"] = "Failed"
		fam = append(fam, "podReplacementPolicy:Failed")
	case !hasPFP && g.chance(0.2):
		spec["podReplacementPolicy"] = "TerminatingOrFailed"
		fam = append(fam, "podReplacementPolicy:TerminatingOrFailed")
	}
	restartPolicy := "Never"
	if !hasPFP && g.chance(0.1) {
		restartPolicy = "OnFailure"
		fam = append(fam, "restartPolicy:OnFailure")
	}
	podSpec := map[string]any{"restartPolicy": restartPolicy,
		"containers": []any{map[string]any{"name": "main", "image": "busybox"}}}
	unreachable := func(secs *int) map[string]any {
		t := map[string]any{"key": "node.kubernetes.io/unreachable", "operator": "Exists", "effect": "NoExecute"}
		if secs != nil {
			t["tolerationSeconds"] = *secs
		}
		return t
	}
	switch k := g.r.IntN(20); {
	case k < 7:
		fam = append(fam, "tolerations:default")
	case k < 15:
		s := g.pick(0, 30, 600).(int)
		podSpec["tolerations"] = []any{unreachable(&s)}
		fam = append(fam, fmt.Sprintf("tolerations:unreachable:%ds", s))
	case k < 18:
		podSpec["tolerations"] = []any{unreachable(nil)}
		fam = append(fam, "tolerations:unreachable:forever")
	default:
		// Tolerates every taint, forever (the out-of-service taint too).
		podSpec["tolerations"] = []any{map[string]any{"operator": "Exists"}}
		fam = append(fam, "tolerations:everything")
	}
	if g.chance(0.5) {
		podSpec["terminationGracePeriodSeconds"] = g.pick(0, 5, 60).(int)
		fam = append(fam, "gracePeriod")
	}
	spec["template"] = map[string]any{"spec": podSpec}

	// Scripts: per index (or slot), runs that lose their node (5 s to 5 min after the start),
	// exit, or run on; sometimes two indexes lose their nodes within seconds of each other.
	var exits []tlExit
	multi := completions > 1 && g.chance(0.4)
	if multi {
		fam = append(fam, "nodeLoss:several")
	}
	base := float64(5 + 5*g.r.IntN(60))
	for ix := 0; ix < completions; ix++ {
		if !multi && ix > 0 && g.chance(0.5) {
			continue
		}
		after := float64(5 + 5*g.r.IntN(60))
		if multi {
			after = base + float64(g.r.IntN(8))
		}
		e := tlExit{PodIndex: ptrTo(ix), AfterSeconds: after, ExitCode: 137, NodeFailure: true}
		if g.chance(0.6) {
			e.Times = ptrTo(1 + g.r.IntN(2))
		}
		exits = append(exits, e)
		if e.Times != nil {
			exits = append(exits, tlExit{PodIndex: ptrTo(ix), AfterSeconds: float64(5 + 5*g.r.IntN(40)), ExitCode: g.pick(int32(0), int32(0), int32(1), int32(42)).(int32)})
		}
	}
	job := map[string]any{"apiVersion": "batch/v1", "kind": "Job",
		"metadata": map[string]any{"name": "job", "namespace": "default"}, "spec": spec}
	sc := &tlScenario{Kind: "Scenario", Name: fmt.Sprintf("nodeloss-timeline-%d", i), KubernetesVersion: minorVersion(k8sModule()),
		RunFor: "2400s", runForSeconds: 2400, Exits: exits, Workload: job}
	if g.chance(0.2) {
		sc.StartupSeconds = float64(g.pick(5, 20).(int))
		fam = append(fam, "startupSeconds")
	}
	if g.chance(0.8) {
		nl := &tlNodeLoss{}
		switch k := g.r.IntN(10); {
		case k < 4:
			nl.NodeDeletedAfterSeconds = ptrTo(float64(g.pick(0, 10, 60, 120, 400).(int)))
			fam = append(fam, "nodeLoss:nodeDeleted")
		case k < 8:
			nl.OutOfServiceAfterSeconds = ptrTo(float64(g.pick(0, 20, 100, 600).(int)))
			fam = append(fam, "nodeLoss:outOfService")
		default:
			fam = append(fam, "nodeLoss:neither")
		}
		if g.chance(0.35) {
			nl.NodeMonitorGracePeriodSeconds = ptrTo(float64(g.pick(20, 40, 50, 90).(int)))
			fam = append(fam, "nodeLoss:gracePeriod")
		}
		if g.chance(0.25) {
			nl.NodeMonitorPeriodSeconds = ptrTo(float64(g.pick(1, 2, 3, 10).(int)))
			fam = append(fam, "nodeLoss:monitorPeriod")
		}
		sc.NodeLoss = nl
	} else {
		fam = append(fam, "nodeLoss:none")
	}
	sc.family = strings.Join(dedupe(fam), ",")
	return sc
}
