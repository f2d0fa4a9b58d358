package rkhost

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// The plugin answers every op of the core's table (opNames, generated from it), and each
// refuses a malformed input with an error response naming the field, never a trap.
func TestEveryOpOfTheTable(t *testing.T) {
	p := load(t)
	ctx := context.Background()
	d, err := p.Describe(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var v struct {
		Operations []string `json:"operations"`
		Actions    []struct {
			Code int    `json:"code"`
			Name string `json:"name"`
		} `json:"actions"`
	}
	if err := json.Unmarshal([]byte(d), &v); err != nil {
		t.Fatal(err)
	}
	if strings.Join(v.Operations, ",") != strings.Join(opNames, ",") {
		t.Fatalf("the plugin's ops %v, the table's %v", v.Operations, opNames)
	}
	for i, a := range v.Actions {
		if a.Code != i || a.Name != actionNames[i] || Action(i).String() != a.Name {
			t.Fatalf("action %d: %+v, the host's %q", i, a, actionNames[i])
		}
	}
	for _, op := range opNames {
		if op == "describe" {
			continue // takes no input
		}
		for _, input := range []string{`{"notAMember":1}`, `5`} {
			req := fmt.Sprintf(`{"op":%q,"input":%s}`, op, input)
			st, body, err := p.Evaluate(ctx, []byte(req))
			if err != nil || st != StatusOK {
				t.Fatalf("%s: status %v err %v body %s", req, st, err, body)
			}
			var r struct {
				Status string `json:"status"`
				Errors []struct {
					Field   string `json:"field"`
					Message string `json:"message"`
					Code    string `json:"code"`
				} `json:"errors"`
			}
			if err := json.Unmarshal([]byte(body), &r); err != nil || r.Status != "error" || len(r.Errors) == 0 {
				t.Fatalf("%s: %s", req, body)
			}
			e := r.Errors[0]
			named := strings.Contains(e.Message, "notAMember") || strings.Contains(e.Message, "missing field `") ||
				strings.HasPrefix(e.Field, "input") || e.Code == "op-not-built"
			if !named {
				t.Errorf("%s: the error names no field: %s", req, body)
			}
		}
	}
	if p.Rebuilds() != 0 {
		t.Fatal("no call above may trap")
	}
}
