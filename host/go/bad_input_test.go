package rkhost

// The shared bad-input corpus (conformance/bad-input/manifest.json) through the Go host: every
// case, as a contract request in linear memory, must come back as an error response (or
// valid:false) whose diagnostics name the expected line or field; no trap, no ABI breach, and no
// hang (each call runs under a deadline). Expectations for front end "plugin" apply.

import (
	"bytes"
	"context"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"
)

type badCase struct {
	Name      string                    `json:"name"`
	Input     string                    `json:"input"`
	File      string                    `json:"file"`
	Generate  []json.RawMessage         `json:"generate"`
	Expect    map[string]any            `json:"expect"`
	FrontEnds map[string]map[string]any `json:"frontEnds"`
}

const corpusDir = "../../conformance/bad-input/"

func (c badCase) bytes(t *testing.T) []byte {
	if c.File != "" {
		b, err := os.ReadFile(corpusDir + c.File)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	var out bytes.Buffer
	for _, raw := range c.Generate {
		var s string
		if json.Unmarshal(raw, &s) == nil {
			out.WriteString(s)
			continue
		}
		var p struct {
			Bytes     string `json:"bytes"`
			Repeat    string `json:"repeat"`
			Times     int    `json:"times"`
			Separator string `json:"separator"`
		}
		if err := json.Unmarshal(raw, &p); err != nil {
			t.Fatal(err)
		}
		if p.Bytes != "" {
			b, err := hex.DecodeString(p.Bytes)
			if err != nil {
				t.Fatal(err)
			}
			out.Write(b)
			continue
		}
		for i := 0; i < p.Times; i++ {
			if i > 0 {
				out.WriteString(p.Separator)
			}
			out.WriteString(strings.ReplaceAll(p.Repeat, "{i}", strconv.Itoa(i)))
		}
	}
	return out.Bytes()
}

// validateRequest wraps raw source bytes in a validate request, escaping only what JSON needs, so
// bytes that are not UTF-8 reach the guest as they are.
func validateRequest(src []byte) []byte {
	var out bytes.Buffer
	out.WriteString(`{"op":"validate","input":{"source":"`)
	for _, b := range src {
		switch {
		case b == '"':
			out.WriteString(`\"`)
		case b == '\\':
			out.WriteString(`\\`)
		case b == '\n':
			out.WriteString(`\n`)
		case b == '\t':
			out.WriteString(`\t`)
		case b < 0x20:
			fmt.Fprintf(&out, `\u%04x`, b)
		default:
			out.WriteByte(b)
		}
	}
	out.WriteString(`"}}`)
	return out.Bytes()
}

func matches(diags []map[string]any, want map[string]any) bool {
	for _, d := range diags {
		ok := true
		for k, v := range want {
			if !reflect.DeepEqual(d[k], v) {
				ok = false
				break
			}
		}
		if ok {
			return true
		}
	}
	return false
}

func TestBadInputCorpus(t *testing.T) {
	raw, err := os.ReadFile(corpusDir + "manifest.json")
	if err != nil {
		t.Fatal(err)
	}
	var m struct {
		Cases []badCase `json:"cases"`
	}
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	// The 100,000-rule manifests need about 100 MB of linear memory; the deadline bounds hangs.
	p, err := Load(ctx, pluginPath(t), Limits{MemoryBytes: 512 << 20, Timeout: 60 * time.Second}, cacheDir(t))
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close(ctx)
	for _, c := range m.Cases {
		t.Run(c.Name, func(t *testing.T) {
			want := c.Expect
			if o, ok := c.FrontEnds["plugin"]; ok {
				want = o
			}
			req := c.bytes(t)
			if c.Input == "source" {
				req = validateRequest(req)
			}
			_, body, err := p.Evaluate(ctx, req)
			if err != nil {
				t.Fatalf("host error: %v", err)
			}
			var resp struct {
				Status string           `json:"status"`
				Errors []map[string]any `json:"errors"`
				Result struct {
					Errors []map[string]any `json:"errors"`
				} `json:"result"`
			}
			if err := json.Unmarshal([]byte(body), &resp); err != nil {
				t.Fatalf("body is not JSON (%v): %.500s", err, body)
			}
			diags := resp.Errors
			if resp.Status != "error" {
				diags = resp.Result.Errors
			}
			for _, d := range diags {
				if msg, _ := d["message"].(string); strings.TrimSpace(msg) == "" {
					t.Fatalf("a diagnostic without a message: %v", d)
				}
			}
			if !matches(diags, want) {
				t.Fatalf("no diagnostic has %v; got %.2000v", want, diags)
			}
		})
	}
}
