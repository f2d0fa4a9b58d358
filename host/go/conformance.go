package rkhost

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
)

func jsonUnmarshal(b []byte, v any) error { return json.Unmarshal(b, v) }

// Vector is one conformance vector (conformance/FORMAT.md).
type Vector struct {
	ID     string          `json:"id"`
	Op     string          `json:"op"`
	Input  json.RawMessage `json:"input"`
	Expect json.RawMessage `json:"expect"`
}

// ReadVectors reads a vector file (a JSON array).
func ReadVectors(path string) ([]Vector, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var vs []Vector
	if err := json.Unmarshal(b, &vs); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return vs, nil
}

// RunVector runs one vector through the plugin; the error is the text of its FAIL line.
func RunVector(ctx context.Context, p *Plugin, v Vector) error {
	if v.Op == "" {
		return fmt.Errorf("vector has no op")
	}
	if len(v.Expect) == 0 {
		return fmt.Errorf("vector has no expect")
	}
	input := v.Input
	if len(input) == 0 {
		input = json.RawMessage("null")
	}
	req, err := json.Marshal(map[string]any{"op": v.Op, "input": input})
	if err != nil {
		return err
	}
	body, err := p.HandleJSON(ctx, string(req))
	if err != nil {
		return fmt.Errorf("plugin error: %v", err)
	}
	var expect any
	if err := json.Unmarshal(v.Expect, &expect); err != nil {
		return err
	}
	// The known upstream divergences (conformance/divergences.json) are applied by the core.
	if vec, err := json.Marshal(v); err == nil {
		if req, err := json.Marshal(map[string]any{"op": "vectorExpect", "input": map[string]json.RawMessage{"vector": vec}}); err == nil {
			if out, err := p.HandleJSON(ctx, string(req)); err == nil {
				var r struct {
					Status string `json:"status"`
					Result struct {
						Expect any `json:"expect"`
					} `json:"result"`
				}
				if json.Unmarshal([]byte(out), &r) == nil && r.Status == "ok" {
					expect = r.Result.Expect
				}
			}
		}
	}
	return CheckResponse(expect, []byte(body))
}

// CheckResponse compares a contract response with a vector's expect.
func CheckResponse(expect any, body []byte) error {
	var resp struct {
		Status string `json:"status"`
		Result any    `json:"result"`
		Errors []struct {
			Message string `json:"message"`
		} `json:"errors"`
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	if err := dec.Decode(&resp); err != nil {
		return fmt.Errorf("the plugin's response is not a contract response: %v", err)
	}
	switch resp.Status {
	case "ok":
		return Compare(expect, resp.Result)
	case "error":
		msgs := make([]string, len(resp.Errors))
		for i, e := range resp.Errors {
			msgs[i] = e.Message
		}
		return fmt.Errorf("request failed: %s", strings.Join(msgs, "; "))
	default:
		return fmt.Errorf("the plugin's response has status %q", resp.Status)
	}
}

// Compare is FORMAT.md's comparison of a result with a vector's expect.
func Compare(expect, result any) error {
	exp, ok1 := expect.(map[string]any)
	res, ok2 := result.(map[string]any)
	if !ok1 || !ok2 {
		return fmt.Errorf("expect and result must be objects")
	}
	complete := true
	if c, ok := exp["errorsComplete"].(bool); ok {
		complete = c
	}
	for _, k := range sortedKeys(exp) {
		ev := exp[k]
		switch k {
		case "errorsComplete":
		case "errors":
			if err := compareErrors(ev, res["errors"], complete); err != nil {
				return err
			}
		case "errorMessages":
			msgs := messages(res["errors"])
			list, _ := ev.([]any)
			for _, m := range list {
				s, _ := m.(string)
				if !containsAny(msgs, s) {
					return fmt.Errorf("no error message contains %q; messages: %q", s, msgs)
				}
			}
		default:
			rv, ok := res[k]
			if !ok {
				return fmt.Errorf("result has no %q (expected %s)", k, render(ev))
			}
			if err := PartialEqual(ev, rv); err != nil {
				return fmt.Errorf("%s%v", k, err)
			}
		}
	}
	return nil
}

func messages(errs any) []string {
	list, _ := errs.([]any)
	var out []string
	for _, e := range list {
		if m, ok := e.(map[string]any); ok {
			if s, ok := m["message"].(string); ok {
				out = append(out, s)
			}
		}
	}
	return out
}

func containsAny(msgs []string, s string) bool {
	for _, m := range msgs {
		if strings.Contains(m, s) {
			return true
		}
	}
	return false
}

type errKey struct {
	field string
	typ   *string
}

func keyOf(e any) errKey {
	m, _ := e.(map[string]any)
	f, _ := m["field"].(string)
	var t *string
	if s, ok := m["type"].(string); ok {
		t = &s
	}
	return errKey{f, t}
}

func (k errKey) String() string {
	t := "null"
	if k.typ != nil {
		t = *k.typ
	}
	return "{" + k.field + ", " + t + "}"
}

func compareErrors(expected, got any, complete bool) error {
	exp, _ := expected.([]any)
	gotList, _ := got.([]any)
	gotKeys := make([]errKey, len(gotList))
	for i, g := range gotList {
		gotKeys[i] = keyOf(g)
	}
	msgs := messages(got)
	var typed []errKey
	var untyped []string
	for _, e := range exp {
		k := keyOf(e)
		if k.typ != nil {
			found := false
			for _, g := range gotKeys {
				if g.field == k.field && g.typ != nil && *g.typ == *k.typ {
					found = true
					break
				}
			}
			if !found {
				parts := make([]string, len(gotKeys))
				for i, g := range gotKeys {
					parts[i] = g.String()
				}
				return fmt.Errorf("missing error %s; got [%s]", k, strings.Join(parts, ", "))
			}
			typed = append(typed, k)
		} else {
			m, _ := e.(map[string]any)
			s, _ := m["message"].(string)
			if !containsAny(msgs, s) {
				return fmt.Errorf("no error message contains %q; messages: %q", s, msgs)
			}
			untyped = append(untyped, s)
		}
	}
	if !complete {
		return nil
	}
	for i, g := range gotList {
		k := gotKeys[i]
		m, _ := g.(map[string]any)
		msg, _ := m["message"].(string)
		ok := false
		if k.typ != nil {
			for _, t := range typed {
				if t.field == k.field && *t.typ == *k.typ {
					ok = true
					break
				}
			}
		} else {
			for _, u := range untyped {
				if strings.Contains(msg, u) {
					ok = true
					break
				}
			}
		}
		if !ok {
			return fmt.Errorf("unexpected error %s: %s", k, msg)
		}
	}
	return nil
}

// PartialEqual: expect ⊆ got. Objects by the expected keys (an expected null may be absent),
// lists element by element with equal length, numbers by value.
func PartialEqual(exp, got any) error {
	switch e := exp.(type) {
	case map[string]any:
		if g, ok := got.(map[string]any); ok {
			for _, k := range sortedKeys(e) {
				gv, present := g[k]
				if !present {
					if e[k] == nil {
						continue
					}
					return fmt.Errorf(".%s: missing (expected %s)", k, render(e[k]))
				}
				if err := PartialEqual(e[k], gv); err != nil {
					return fmt.Errorf(".%s%v", k, err)
				}
			}
			return nil
		}
	case []any:
		if g, ok := got.([]any); ok {
			if len(e) != len(g) {
				return fmt.Errorf(": expected %d items, got %d (%s)", len(e), len(g), render(got))
			}
			for i := range e {
				if err := PartialEqual(e[i], g[i]); err != nil {
					return fmt.Errorf("[%d]%v", i, err)
				}
			}
			return nil
		}
	case float64:
		if g, ok := got.(float64); ok && g == e {
			return nil
		}
	case string, bool, nil:
		if exp == got {
			return nil
		}
	}
	return fmt.Errorf(": expected %s, got %s", render(exp), render(got))
}

func render(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	// Deterministic order for messages.
	for i := 1; i < len(keys); i++ {
		for j := i; j > 0 && keys[j] < keys[j-1]; j-- {
			keys[j], keys[j-1] = keys[j-1], keys[j]
		}
	}
	return keys
}

// RunFiles runs every vector of files, printing a FAIL line per failure and the closing
// "N passed, M failed" line; it returns the failing ids.
func RunFiles(ctx context.Context, p *Plugin, files []string, out io.Writer) (passed int, failedIDs []string) {
	for _, f := range files {
		vs, err := ReadVectors(f)
		if err != nil {
			fmt.Fprintf(out, "FAIL %s: %v\n", f, err)
			failedIDs = append(failedIDs, f)
			continue
		}
		for _, v := range vs {
			if err := RunVector(ctx, p, v); err != nil {
				fmt.Fprintf(out, "FAIL %s: %v\n", v.ID, err)
				failedIDs = append(failedIDs, v.ID)
			} else {
				passed++
			}
		}
	}
	fmt.Fprintf(out, "%d passed, %d failed\n", passed, len(failedIDs))
	return passed, failedIDs
}
