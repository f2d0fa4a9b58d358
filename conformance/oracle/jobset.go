package main

// The JobSet leg: JobSet manifests validated by the JobSet webhook, whose answers come from the
// jobset-upstream helper built from jobset/ (sigs.k8s.io/jobset at its own release pins; see
// jobset/main.go for why it is a binary of its own). It is kept running and asked one JSON line
// per case, as the kruise helper is; the JobSet timeline also drives its reconciler through it.

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"strings"
)

var flagJobSet = flag.String("jobset", "", "the jobset-upstream helper (built from conformance/oracle/jobset); without it the JobSet legs are skipped")

var jobsetHelperProc *helper

func jobsetHelper() (*helper, error) {
	if jobsetHelperProc != nil {
		return jobsetHelperProc, nil
	}
	if *flagJobSet == "" {
		return nil, errors.New("no -jobset helper given")
	}
	h, err := startHelper(*flagJobSet)
	if err != nil {
		return nil, fmt.Errorf("jobset helper: %v", err)
	}
	var v struct{ Version string }
	if err := h.call(map[string]any{"op": "version"}, &v); err != nil {
		return nil, fmt.Errorf("jobset helper: %v", err)
	}
	h.version = v.Version
	jobsetHelperProc = h
	return h, nil
}

// jobsetModule names the jobset release the helper was built from.
func jobsetModule() string {
	if h, err := jobsetHelper(); err == nil {
		return h.version
	}
	return "(helper missing)"
}

// jobsetExpect asks the helper for upstream's answer to one case of a JobSet op.
func jobsetExpect(op string) func([]byte) (map[string]any, error) {
	return func(raw []byte) (map[string]any, error) {
		h, err := jobsetHelper()
		if err != nil {
			return nil, err
		}
		var a struct {
			Expect map[string]any `json:"expect"`
			Skip   string         `json:"skip"`
		}
		if err := h.call(map[string]any{"op": op, "input": json.RawMessage(raw)}, &a); err != nil {
			return nil, err
		}
		if a.Skip != "" {
			return nil, errors.New("jobset: " + a.Skip)
		}
		return a.Expect, nil
	}
}

var jobsetFailureReasons = []string{"BackoffLimitExceeded", "DeadlineExceeded", "FailedIndexes", "MaxFailedIndexesExceeded", "PodFailurePolicy"}

// validateJobSet: JobSets near the webhook's checks: replicated job names and counts, failure
// policy rules (names valid, empty, too long, malformed, repeated; targets and reasons known or
// not), success policy targets.
func (g gen) validateJobSet() map[string]any {
	names := []string{"workers", "driver", "ps", "a", "trainer-" + strings.Repeat("x", g.r.IntN(50))}
	n := 1 + g.r.IntN(3)
	var rjs []any
	var used []string
	for i := 0; i < n; i++ {
		name := names[g.r.IntN(len(names))]
		used = append(used, name)
		tmpl := map[string]any{
			"spec": map[string]any{
				"restartPolicy": g.pick("Never", "OnFailure").(string),
				"containers":    []any{map[string]any{"name": "main", "image": "busybox"}},
			},
		}
		if g.chance(0.3) {
			delete(tmpl["spec"].(map[string]any), "restartPolicy") // defaulted to OnFailure
		}
		rj := map[string]any{
			"name":     name,
			"replicas": g.pick(1, 2, 3, 4, 1025).(int),
			"template": map[string]any{"spec": map[string]any{"template": tmpl}},
		}
		if g.chance(0.2) {
			rj["groupName"] = g.pick("default", "group-a", "Bad_Group").(string)
		}
		rjs = append(rjs, rj)
	}
	spec := map[string]any{"replicatedJobs": rjs}
	ref := func() string {
		if g.chance(0.15) {
			return "unknown-job"
		}
		return used[g.r.IntN(len(used))]
	}
	if g.chance(0.8) {
		fp := map[string]any{"maxRestarts": g.r.IntN(6)}
		if g.chance(0.3) {
			fp["restartStrategy"] = g.pick("Recreate", "BlockingRecreate", "Recreate", "BlockingRecreate", "InPlaceRestart").(string)
		}
		var rules []any
		var ruleNames []string
		for i := 0; i < g.r.IntN(5); i++ {
			rule := map[string]any{
				"action": g.pick("FailJobSet", "RestartJobSet", "RestartJobSetAndIgnoreMaxRestarts").(string),
			}
			if g.chance(0.1) {
				rule["action"] = g.pick("RestartJob", "RestartJobAndIgnoreMaxRestarts").(string)
			}
			switch {
			case len(ruleNames) > 0 && g.chance(0.1):
				rule["name"] = ruleNames[g.r.IntN(len(ruleNames))]
			case g.chance(0.1):
				rule["name"] = g.pick("1abc", "a-b", "ab_", "a:b,c", strings.Repeat("r", 129), "x").(string)
			case g.chance(0.8):
				name := fmt.Sprintf("rule%d", i)
				rule["name"] = name
				ruleNames = append(ruleNames, name)
			}
			if g.chance(0.5) {
				var rs []any
				for j := 0; j < 1+g.r.IntN(2); j++ {
					if g.chance(0.15) {
						rs = append(rs, "NotAReason")
					} else {
						rs = append(rs, jobsetFailureReasons[g.r.IntN(len(jobsetFailureReasons))])
					}
				}
				rule["onJobFailureReasons"] = rs
			}
			if g.chance(0.5) {
				rule["targetReplicatedJobs"] = []any{ref()}
			}
			rules = append(rules, rule)
		}
		if len(rules) > 0 {
			fp["rules"] = rules
		}
		spec["failurePolicy"] = fp
	}
	if g.chance(0.4) {
		sp := map[string]any{"operator": g.pick("All", "Any").(string)}
		if g.chance(0.6) {
			sp["targetReplicatedJobs"] = []any{ref()}
		}
		spec["successPolicy"] = sp
	}
	in := map[string]any{}
	if g.chance(0.3) {
		in["featureGates"] = map[string]any{"RestartJob": g.chance(0.5), "InPlaceRestart": g.chance(0.5)}
	}
	in["object"] = map[string]any{
		"apiVersion": "jobset.x-k8s.io/v1alpha2",
		"kind":       "JobSet",
		"metadata":   map[string]any{"name": g.pick("js", "training-run", strings.Repeat("n", 40)).(string), "namespace": "default"},
		"spec":       spec,
	}
	return in
}
