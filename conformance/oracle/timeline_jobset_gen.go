package main

// The timeline leg, JobSet scenarios: generated JobSets played by the real JobSet and Job
// controllers (timeline_jobset.go) and by `restartkit simulate`; both reduced to Job-level events
// per Job (as for Jobs) plus the Jobs' creation (with their restart-attempt label), deletion and
// removal, and the JobSet's restarts and final condition.

import (
	"errors"
	"fmt"
	"strings"
)

// jobsetTimelineScenario generates one JobSet scenario: 1–3 replicatedJobs of 1–3 small Jobs
// (Indexed, or NonIndexed; sometimes with an init container or sidecar), a failurePolicy (each action, rules by reason, target and message
// pattern, maxRestarts 0–3) or none, a successPolicy, scripted exits and node failures per Pod.
// The families added after the first release (NonIndexed Jobs, init containers) are drawn from extra, a stream of
// their own, so that g's draws, and with them the scenarios of a given seed, stay as they were;
// they only change where a new family is drawn. A scenario that loses a node draws what the
// cluster does about it (the `nodeLoss` block, the Pods' tolerations) from nodeLoss, a third
// stream: the node failures themselves are g's draws (with probability -timeline-jobset-nodeloss
// per scripted run), so at the default the scenarios of a seed are as before but for that block.
// The failurePolicy's restartStrategy (Recreate by default, or BlockingRecreate) comes from
// strategy, a fourth stream (nil: Recreate only, for the explain leg).
func (g gen) jobsetTimelineScenario(i int, extra, nodeLoss gen, strategy *gen) *tlScenario {
	var fam []string
	withInit := false
	nrj := 1 + g.r.IntN(3)
	var rjs []any
	var names []string
	type shape struct{ replicas, completions int }
	var shapes []shape
	for r := 0; r < nrj; r++ {
		name := []string{"leader", "workers", "ps"}[r]
		names = append(names, name)
		replicas := 1 + g.r.IntN(3)
		if nrj == 3 {
			replicas = 1 + g.r.IntN(2)
		}
		completions := 1 + g.r.IntN(3)
		parallelism := 1 + g.r.IntN(completions)
		spec := map[string]any{"completions": completions, "parallelism": parallelism, "completionMode": "Indexed",
			"backoffLimit": g.r.IntN(3)}
		if extra.chance(0.3) {
			// NonIndexed: the harness and restartkit name its Pods by slot (timeline.go, index).
			spec["completionMode"] = "NonIndexed"
			fam = append(fam, "job:NonIndexed")
		}
		if g.chance(0.3) {
			var rules []any
			if g.chance(0.7) {
				rules = append(rules, map[string]any{"action": "FailJob", "onExitCodes": map[string]any{"operator": "In", "values": []int{42}}})
				fam = append(fam, "job:podFailurePolicy:FailJob")
			}
			if g.chance(0.5) {
				rules = append(rules, map[string]any{"action": "Ignore", "onPodConditions": []any{map[string]any{"type": "DisruptionTarget"}}})
				fam = append(fam, "job:podFailurePolicy:Ignore")
			}
			if len(rules) == 0 {
				rules = append(rules, map[string]any{"action": "Count", "onExitCodes": map[string]any{"operator": "In", "values": []int{3}}})
			}
			spec["podFailurePolicy"] = map[string]any{"rules": rules}
		}
		if g.chance(0.1) {
			spec["activeDeadlineSeconds"] = 60 + g.r.IntN(240)
			fam = append(fam, "job:activeDeadlineSeconds")
		}
		podSpec := map[string]any{"restartPolicy": "Never",
			"containers": []any{map[string]any{"name": "main", "image": "busybox"}}}
		if g.chance(0.7) {
			podSpec["terminationGracePeriodSeconds"] = g.pick(0, 5, 20, 45).(int)
			fam = append(fam, "gracePeriod")
		}
		if extra.chance(0.2) {
			// An init container that completes at once, or a sidecar (the Job family's kinds).
			c := map[string]any{"name": "init0", "image": "busybox"}
			fam = append(fam, "initContainers:1")
			if extra.chance(0.5) {
				c["restartPolicy"] = "Always"
				fam = append(fam, "sidecar")
			}
			podSpec["initContainers"] = []any{c}
			withInit = true
		}
		spec["template"] = map[string]any{"spec": podSpec}
		rjs = append(rjs, map[string]any{"name": name, "replicas": replicas, "template": map[string]any{"spec": spec}})
		shapes = append(shapes, shape{replicas, completions})
	}
	fam = append(fam, fmt.Sprintf("replicatedJobs:%d", nrj))
	jsSpec := map[string]any{"replicatedJobs": rjs}
	var gates map[string]bool
	if g.chance(0.85) {
		fp := map[string]any{"maxRestarts": g.r.IntN(4)}
		var rules []any
		nrules := g.r.IntN(3)
		actions := []string{"FailJobSet", "RestartJobSet", "RestartJobSetAndIgnoreMaxRestarts"}
		if g.chance(0.3) {
			// The RestartJob actions (alpha gate RestartJob in v0.12.0).
			gates = map[string]bool{"RestartJob": true}
			actions = append(actions, "RestartJob", "RestartJob", "RestartJobAndIgnoreMaxRestarts")
			fam = append(fam, "gate:RestartJob")
		}
		for k := 0; k < nrules; k++ {
			action := actions[g.r.IntN(len(actions))]
			rule := map[string]any{"name": fmt.Sprintf("rule%d", k), "action": action}
			fam = append(fam, "failurePolicy:"+action)
			if g.chance(0.5) {
				rule["onJobFailureReasons"] = []string{g.pick("BackoffLimitExceeded", "PodFailurePolicy", "DeadlineExceeded").(string)}
				fam = append(fam, "onJobFailureReasons")
			}
			if g.chance(0.3) {
				rule["targetReplicatedJobs"] = []string{names[g.r.IntN(len(names))]}
				fam = append(fam, "targetReplicatedJobs")
			}
			if g.chance(0.2) {
				rule["onJobFailureMessagePatterns"] = []string{g.pick("backoff limit", "^Pod .* failed", "deadline").(string)}
				fam = append(fam, "onJobFailureMessagePatterns")
			}
			rules = append(rules, rule)
		}
		if len(rules) > 0 {
			fp["rules"] = rules
		} else {
			fam = append(fam, "failurePolicy:default")
		}
		if strategy != nil && strategy.chance(0.4) {
			fp["restartStrategy"] = "BlockingRecreate"
			fam = append(fam, "restartStrategy:BlockingRecreate")
		}
		jsSpec["failurePolicy"] = fp
		fam = append(fam, fmt.Sprintf("maxRestarts:%d", fp["maxRestarts"]))
	} else {
		fam = append(fam, "failurePolicy:none")
	}
	if g.chance(0.4) {
		sp := map[string]any{"operator": g.pick("All", "Any").(string)}
		if g.chance(0.5) {
			sp["targetReplicatedJobs"] = []string{names[g.r.IntN(len(names))]}
		}
		jsSpec["successPolicy"] = sp
		fam = append(fam, "successPolicy:"+sp["operator"].(string))
	}
	codes := []int32{0, 0, 0, 1, 1, 42, 3}
	var exits []tlExit
	for r, sh := range shapes {
		for ji := 0; ji < sh.replicas; ji++ {
			for pi := 0; pi < sh.completions; pi++ {
				if !g.chance(0.8) {
					continue
				}
				at := tlExit{ReplicatedJob: names[r], JobIndex: ptrTo(ji), PodIndex: ptrTo(pi)}
				exits = append(exits, g.exitScript(at, codes, *flagTimelineJobSetNodeLoss, &fam)...)
			}
		}
	}
	if withInit {
		// Scripts name the Pods' one regular container, so that none applies to an init
		// container or sidecar.
		for k := range exits {
			exits[k].Container = "main"
		}
	}
	js := map[string]any{"apiVersion": "jobset.x-k8s.io/v1alpha2", "kind": "JobSet",
		"metadata": map[string]any{"name": "js", "namespace": "default"}, "spec": jsSpec}
	sc := &tlScenario{Kind: "Scenario", Name: fmt.Sprintf("jobset-timeline-%d", i), KubernetesVersion: minorVersion(k8sModule()),
		RunFor: "600s", runForSeconds: 600, Exits: exits, Workload: js, MaxTimelineEvents: 1 << 20, FeatureGates: gates}
	// A lost node goes through the real node chain (node lifecycle, taint eviction, Pod GC:
	// timeline_nodeloss.go), as in the node-loss family.
	for _, e := range exits {
		if e.NodeFailure {
			sc.NodeLoss = nodeLoss.jobsetNodeLoss(rjs, &fam)
			break
		}
	}
	if g.chance(0.25) {
		sc.StartupSeconds = float64(g.pick(5, 20).(int))
		fam = append(fam, "startupSeconds")
	}
	if g.chance(0.25) {
		sc.PodRescheduleSeconds = float64(g.pick(10, 90).(int))
		fam = append(fam, "podRescheduleSeconds")
	}
	sc.family = "JobSet," + strings.Join(dedupe(fam), ",")
	return sc
}

// jobsetNodeLoss draws, for a JobSet scenario that loses a node, what the cluster does about it:
// the `nodeLoss` block (the Node deleted or tainted out-of-service some time after the loss, or
// neither; sometimes another monitor grace period) and the Pods' tolerations of the unreachable
// taint (the same for every replicatedJob: restartkit's and upstream's defaults otherwise, 300 s
// from DefaultTolerationSeconds, longer than most of the 10 simulated minutes after a loss). The
// node-loss family's draws, fewer of them.
func (g gen) jobsetNodeLoss(rjs []any, fam *[]string) *tlNodeLoss {
	nl := &tlNodeLoss{}
	// The JobSet scenarios that lose a node (the summary's count of them; nodeFailure counts
	// the Job family's too).
	*fam = append(*fam, "JobSet:nodeLoss")
	switch k := g.r.IntN(10); {
	case k < 3:
		nl.NodeDeletedAfterSeconds = ptrTo(float64(g.pick(0, 10, 60, 120).(int)))
		*fam = append(*fam, "nodeLoss:nodeDeleted")
	case k < 6:
		nl.OutOfServiceAfterSeconds = ptrTo(float64(g.pick(0, 20, 100).(int)))
		*fam = append(*fam, "nodeLoss:outOfService")
	default:
		*fam = append(*fam, "nodeLoss:neither")
	}
	if g.chance(0.2) {
		nl.NodeMonitorGracePeriodSeconds = ptrTo(float64(g.pick(20, 40, 90).(int)))
		*fam = append(*fam, "nodeLoss:gracePeriod")
	}
	var tols []any
	switch k := g.r.IntN(10); {
	case k < 4:
		*fam = append(*fam, "tolerations:default")
	case k < 8:
		s := g.pick(0, 30, 120).(int)
		tols = []any{map[string]any{"key": "node.kubernetes.io/unreachable", "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": s}}
		*fam = append(*fam, fmt.Sprintf("tolerations:unreachable:%ds", s))
	default:
		tols = []any{map[string]any{"key": "node.kubernetes.io/unreachable", "operator": "Exists", "effect": "NoExecute"}}
		*fam = append(*fam, "tolerations:unreachable:forever")
	}
	if tols != nil {
		for _, rj := range rjs {
			podSpec := rj.(map[string]any)["template"].(map[string]any)["spec"].(map[string]any)["template"].(map[string]any)["spec"].(map[string]any)
			podSpec["tolerations"] = tols
		}
	}
	return nl
}

// upstreamJobSet is the scenario's JobSet as the API server stores it: the CRD's OpenAPI
// defaults, the webhook's Default, and its ValidateCreate (a JobSet it refuses is skipped), by
// the jobset-upstream helper.
func upstreamJobSet(sc *tlScenario) (map[string]any, error) {
	h, err := jobsetHelper()
	if err != nil {
		return nil, err
	}
	var a struct {
		Object map[string]any `json:"object"`
		Skip   string         `json:"skip"`
	}
	if err := h.call(map[string]any{"op": "admit", "object": sc.Workload, "featureGates": sc.FeatureGates}, &a); err != nil {
		return nil, err
	}
	if a.Skip != "" {
		return nil, errors.New(a.Skip)
	}
	return a.Object, nil
}
