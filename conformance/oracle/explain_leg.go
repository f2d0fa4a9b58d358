package main

// What the explain leg's three families (explain_pod.go, explain_job.go, explain_jobset.go)
// share once their snapshots are taken: one `restartkit batch` of explain requests, each answer
// through the family's verdict, the disagreements shown and written, the counts per family.

import (
	"encoding/json"
	"fmt"
	"time"
)

// explainSnap is one snapshot of a family: the objects at an instant of an upstream run.
type explainSnap interface {
	scenarioName() string
	scenarioFamily() string
	instant() time.Time
	// input: the explain op's input for the snapshot.
	input() map[string]any
	// record: the scenario, the snapshot and the run, for the disagreements file.
	record() map[string]any
}

// explainTally is what a family's snapshots gave.
type explainTally struct {
	disagreements, compared, apart int
	perFamily                      familyCounts
	rkTime                         time.Duration
}

// explainSnapshots explains every snapshot in one batch and checks each answer with verdict
// (the difference, or ""; and the predictions compared and set apart); each disagreement is
// shown (the first five) and written to outPath when given.
func explainSnapshots[S explainSnap](snaps []S, outPath string, verdict func(S, json.RawMessage) (string, int, int)) (explainTally, error) {
	t := explainTally{perFamily: familyCounts{}}
	reqs := make([][]byte, len(snaps))
	for i, s := range snaps {
		reqs[i] = mustJSON(map[string]any{"op": "explain", "input": s.input()})
	}
	start := time.Now()
	resps, _, err := runBatch(reqs, false)
	if err != nil {
		return t, err
	}
	t.rkTime = time.Since(start)
	var dis *jsonLines
	if outPath != "" {
		if dis, err = newJSONLines(outPath); err != nil {
			return t, err
		}
		defer dis.close()
	}
	for i, s := range snaps {
		diff := ""
		if resps[i].Status != "ok" {
			diff = "restartkit refused the snapshot: " + string(resps[i].Errors)
		} else {
			var c, a int
			diff, c, a = verdict(s, resps[i].Result)
			t.compared += c
			t.apart += a
		}
		t.perFamily.add(s.scenarioFamily(), diff != "")
		if diff == "" {
			continue
		}
		t.disagreements++
		rec := s.record()
		if t.disagreements <= 5 {
			fmt.Printf("DISAGREE %s at %s: %s\n  scenario: %s\n  snapshot: %s\n  explain: %s\n", s.scenarioName(), s.instant().Format(time.RFC3339), diff,
				mustJSON(rec["scenario"]), mustJSON(rec["snapshot"]), resps[i].Result)
		}
		rec["now"], rec["difference"], rec["explain"] = s.instant().Format(time.RFC3339), diff, resps[i].Result
		dis.write(rec)
	}
	return t, nil
}

// explainInput: the explain op's input for objects at an instant of a scenario's run.
func explainInput(objects json.RawMessage, version string, at time.Time, gates map[string]bool) map[string]any {
	in := map[string]any{"objects": objects, "kubernetesVersion": version, "now": at.Format(time.RFC3339)}
	if len(gates) > 0 {
		in["featureGates"] = gates
	}
	return in
}
