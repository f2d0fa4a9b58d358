package main

// Minimising a disagreement: greedily delete list items and optional keys of the input while
// upstream still takes it and restartkit still disagrees. Each round tries every one-step
// deletion in one `restartkit batch` run and keeps the first that still disagrees.

import (
	"encoding/json"
	"fmt"
	"time"
)

// Keys that are never deleted: without them the input is not about the same thing any more.
var keep = map[string]bool{
	"apiVersion": true, "kind": true, "metadata": true, "name": true, "namespace": true, "image": true,
	"spec": true, "containers": true, "template": true, "container": true, "exitCode": true,
	"job": true, "pod": true, "object": true, "kubernetesVersion": true, "status": true, "uid": true,
	// workloads (workloads.go): without these a controller has errors outside the restart scope
	"schedule": true, "jobTemplate": true, "selector": true, "matchLabels": true, "labels": true,
}

// deletions lists every tree that is `v` with one list item or one optional key removed.
func deletions(v any) []any {
	var out []any
	switch t := v.(type) {
	case map[string]any:
		for k, x := range t {
			if !keep[k] {
				c := shallowMap(t)
				delete(c, k)
				out = append(out, c)
			}
			for _, sub := range deletions(x) {
				c := shallowMap(t)
				c[k] = sub
				out = append(out, c)
			}
		}
	case []any:
		for i := range t {
			c := append(append([]any{}, t[:i]...), t[i+1:]...)
			out = append(out, c)
			for _, sub := range deletions(t[i]) {
				c := append([]any{}, t...)
				c[i] = sub
				out = append(out, c)
			}
		}
	}
	return out
}

func shallowMap(m map[string]any) map[string]any {
	c := make(map[string]any, len(m))
	for k, v := range m {
		c[k] = v
	}
	return c
}

func minimise(o op, c vcase, version string) vcase {
	best := c
	deadline := time.Now().Add(20 * time.Second)
	for round := 0; round < 200 && time.Now().Before(deadline); round++ {
		var in any
		if json.Unmarshal(best.input, &in) != nil {
			return best
		}
		var cands []vcase
		for _, d := range deletions(in) {
			raw := mustJSON(d)
			var m map[string]any
			_ = json.Unmarshal(raw, &m)
			delete(m, "kubernetesVersion")
			cc, ok := makeCase(o, fmt.Sprint(c.vector["id"]), mustJSON(m), version)
			if ok {
				cands = append(cands, cc)
			}
		}
		if len(cands) == 0 {
			return best
		}
		fails, _, err := check(o, cands, false)
		if err != nil {
			return best
		}
		progressed := false
		for i, f := range fails {
			if f != "" {
				best = cands[i]
				progressed = true
				break
			}
		}
		if !progressed {
			return best
		}
	}
	return best
}
