package rkhost

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"
)

func pluginPath(t testing.TB) string {
	p := DefaultPluginPath()
	if _, err := os.Stat(p); err != nil {
		t.Fatalf("restartkit_plugin.wasm not found at %s: run `make plugin` or set RESTARTKIT_PLUGIN", p)
	}
	return p
}

func cacheDir(t testing.TB) string {
	if d := os.Getenv("RESTARTKIT_GO_CACHE"); d != "" {
		return d
	}
	home, _ := os.UserCacheDir()
	return filepath.Join(home, "restartkit", "wazero")
}

func load(t testing.TB) *Plugin {
	ctx := context.Background()
	p, err := Load(ctx, pluginPath(t), DefaultLimits(), cacheDir(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close(ctx) })
	return p
}

func vectorFiles(t testing.TB) []string {
	files, err := filepath.Glob("../../conformance/vectors/*.json")
	if err != nil || len(files) == 0 {
		t.Fatalf("no vector files: %v", err)
	}
	sort.Strings(files)
	return files
}

// TestVectors runs every conformance vector through wazero: every one must pass, as through
// the wasmtime host and the CLI.
func TestVectors(t *testing.T) {
	p := load(t)
	var out bytes.Buffer
	passed, failed := RunFiles(context.Background(), p, vectorFiles(t), &out)
	t.Logf("wazero: %d passed, %d failed", passed, len(failed))
	if passed+len(failed) < 100 {
		t.Fatalf("only %d vectors", passed+len(failed))
	}
	if len(failed) > 0 {
		t.Fatalf("%d vectors fail through wazero:\n%s", len(failed), out.String())
	}
}

func TestDescribe(t *testing.T) {
	p := load(t)
	d, err := p.Describe(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var v map[string]any
	if err := json.Unmarshal([]byte(d), &v); err != nil {
		t.Fatal(err)
	}
	abi := v["abi"].(map[string]any)
	if abi["major"].(float64) != 1 || v["contractVersion"] != "1.3" || v["deterministic"] != true {
		t.Fatalf("describe: %s", d)
	}
	ops := v["operations"].([]any)
	if len(ops) < 10 || ops[len(ops)-1] != "describe" {
		t.Fatalf("operations: %v", ops)
	}
}

func TestStatuses(t *testing.T) {
	p := load(t)
	ctx := context.Background()
	cases := []struct {
		req  string
		want Status
		in   string
	}{
		{`{"op": `, StatusInvalidJSON, `"code":"invalid-json"`},
		{`{"op":"noSuchOp","input":{}}`, StatusUnknownOperation, `unknown op`},
		{`{"op":"describe","input":{},"contractVersion":"2.0"}`, StatusUnsupportedVersion, `is not supported`},
		{"{\"op\":\"\xff\"}", StatusInvalidUTF8, `not valid UTF-8`},
		{`{"op":"describe","input":{}}`, StatusOK, `"status":"ok"`},
	}
	for _, c := range cases {
		st, body, err := p.Evaluate(ctx, []byte(c.req))
		if err != nil || st != c.want || !strings.Contains(body, c.in) {
			t.Errorf("%q: status %v body %s err %v; want %v containing %s", c.req, st, body, err, c.want, c.in)
		}
	}
	// HandleJSON gives the contract's answer for invalid JSON, as the native function does.
	body, err := p.HandleJSON(ctx, `[1,`)
	if err != nil || !strings.HasPrefix(body, `{"status":"error"`) {
		t.Fatalf("%s %v", body, err)
	}
	if p.Rebuilds() != 0 {
		t.Fatal("no call above may trap")
	}
}

func TestInputLargerThanTheCap(t *testing.T) {
	ctx := context.Background()
	p, err := Load(ctx, pluginPath(t), Limits{MemoryBytes: 8 << 20, Timeout: time.Second}, cacheDir(t))
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close(ctx)
	big := `{"op":"describe","input":{"pad":"` + strings.Repeat("x", 7<<20) + `"}}`
	if _, err := p.HandleJSON(ctx, big); !errors.Is(err, ErrMemoryLimit) {
		t.Fatalf("want a memory-limit error, got %v", err)
	}
	if _, err := p.Describe(ctx); err != nil {
		t.Fatal(err)
	}
}

const pod = `{"object":{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"},
  "spec":{"restartPolicy":"Never","containers":[{"name":"app","image":"busybox",
  "restartPolicy":"Never","restartPolicyRules":[{"action":"Restart","exitCodes":{"operator":"In","values":[42]}}]}]}},
  "featureGates":{"ContainerRestartRules":true}}`

// TestPreparedFlatMemory: a million prepared decisions leave memory as it was, and unknown
// handles are refused without growing it.
func TestPreparedFlatMemory(t *testing.T) {
	p := load(t)
	ctx := context.Background()
	pr, err := p.Prepare(ctx, pod)
	if err != nil {
		// The core's PreparedPolicy is the only path: a refusal (a placeholder included) is a failure.
		t.Fatalf("prepare: %v", err)
	}
	before := p.MemorySize()
	for i := 0; i < 1_000_000; i++ {
		code := int32(1)
		if i%2 == 0 {
			code = 42
		}
		a, err := p.DecideExit(ctx, pr, 0, code)
		if err != nil || (a == 1) != (code == 42) {
			t.Fatalf("exit %d: %v %v", code, a, err)
		}
	}
	if p.MemorySize() != before {
		t.Fatalf("memory grew: %d -> %d", before, p.MemorySize())
	}
	if err := p.Release(ctx, pr); err != nil {
		t.Fatal(err)
	}
	// The released handle, and handles never given out, are refused with -8 (bad handle).
	for i := int32(0); i < 100_000; i++ {
		code, err := p.RawDecideExit(ctx, 1+i%3, 0, i)
		if err != nil || code != -8 {
			t.Fatalf("handle %d: %d %v", 1+i%3, code, err)
		}
	}
	if p.MemorySize() != before {
		t.Fatalf("memory grew after unknown handles: %d -> %d", before, p.MemorySize())
	}
}

// wat compiles testdata/<name>.wat with the Rust host's wat2wasm (RESTARTKIT_HOST_BIN).
func wat(t *testing.T, name string) []byte {
	return watFile(t, filepath.Join("testdata", name+".wat"))
}

func watFile(t testing.TB, path string) []byte {
	bin := os.Getenv("RESTARTKIT_HOST_BIN")
	if bin == "" {
		t.Skip("RESTARTKIT_HOST_BIN (the restartkit-host binary, for wat2wasm) is not set")
	}
	name := strings.TrimSuffix(filepath.Base(path), ".wat")
	out := filepath.Join(t.TempDir(), name+".wasm")
	if b, err := exec.Command(bin, "wat2wasm", path, out).CombinedOutput(); err != nil {
		t.Fatalf("wat2wasm: %v: %s", err, b)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestRunawayStoppedWithin100ms(t *testing.T) {
	ctx := context.Background()
	p := loadSpin(ctx, t)
	for round := uint64(1); round <= 2; round++ {
		expectStopped(t, p, round, func() error {
			_, _, err := p.Evaluate(ctx, []byte("{}"))
			return err
		})
		if d, err := p.Describe(ctx); err != nil || !strings.Contains(d, "fake") {
			t.Fatalf("%s %v", d, err)
		}
	}
}

// loadSpin loads the module whose calls never return, with a 50 ms deadline per call.
func loadSpin(ctx context.Context, t *testing.T) *Plugin {
	t.Helper()
	p, err := LoadBytes(ctx, wat(t, "spin"), Limits{MemoryBytes: 4 << 20, Timeout: 50 * time.Millisecond}, "")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close(ctx) })
	return p
}

// expectStopped: call times out at the 50 ms deadline (not before, and well before "never"),
// and the plugin has been rebuilt `round` times.
func expectStopped(t *testing.T, p *Plugin, round uint64, call func() error) {
	t.Helper()
	start := time.Now()
	err := call()
	took := time.Since(start)
	if !errors.Is(err, ErrTimeout) {
		t.Fatalf("want a timeout, got %v", err)
	}
	if took < 45*time.Millisecond || took >= stoppedWithin {
		t.Fatalf("stopped after %v", took)
	}
	if p.Rebuilds() != round {
		t.Fatalf("rebuilds %d", p.Rebuilds())
	}
}

// stoppedWithin tells "stopped at the deadline" from "never stopped". The lower bounds are exact;
// this upper one is loose because a loaded CI machine (make test runs the front ends side by
// side) delays the watchdog and the test by hundreds of milliseconds.
const stoppedWithin = 2 * time.Second

// TestRunawayDecideExitStopped: the prepared path is bounded by Limits.Timeout too (the
// watchdog, no timer per call), with a context that cannot end; calls that each finish in time
// are never stopped, however long they run together; a context's own deadline still applies.
func TestRunawayDecideExitStopped(t *testing.T) {
	ctx := context.Background()
	p := loadSpin(ctx, t)
	pr, err := p.Prepare(ctx, "{}")
	if err != nil {
		t.Fatal(err)
	}
	for round := uint64(1); round <= 2; round++ {
		expectStopped(t, p, round, func() error {
			_, err := p.DecideExit(ctx, pr, 0, 99)
			return err
		})
		// The next calls run on a fresh instance (re-prepared) under a fresh deadline: 150 ms of
		// short calls, three deadlines' worth, all answered.
		for until := time.Now().Add(150 * time.Millisecond); time.Now().Before(until); {
			if a, err := p.DecideExit(ctx, pr, 0, 1); err != nil || a != 6 {
				t.Fatalf("after the timeout: %v %v", a, err)
			}
		}
	}
	// The caller's own deadline, on a plugin whose Limits.Timeout (1 min) cannot be what stops it.
	patient, err := LoadBytes(ctx, wat(t, "spin"), Limits{MemoryBytes: 4 << 20, Timeout: time.Minute}, "")
	if err != nil {
		t.Fatal(err)
	}
	defer patient.Close(ctx)
	ppr, err := patient.Prepare(ctx, "{}")
	if err != nil {
		t.Fatal(err)
	}
	short, cancel := context.WithTimeout(ctx, 10*time.Millisecond)
	defer cancel()
	start := time.Now()
	if _, err := patient.DecideExit(short, ppr, 0, 99); !errors.Is(err, ErrTimeout) || time.Since(start) >= stoppedWithin {
		t.Fatalf("the caller's deadline: %v after %v", err, time.Since(start))
	}
	if a, err := patient.DecideExit(ctx, ppr, 0, 0); err != nil || a != 0 {
		t.Fatalf("after the caller's deadline: %v %v", a, err)
	}
}

// TestTrustedAnswersTheSame: a Trusted plugin (no termination checks) answers as a guarded one.
func TestTrustedAnswersTheSame(t *testing.T) {
	ctx := context.Background()
	guarded := load(t)
	limits := DefaultLimits()
	limits.Trusted = true
	trusted, err := Load(ctx, pluginPath(t), limits, cacheDir(t))
	if err != nil {
		t.Fatal(err)
	}
	defer trusted.Close(ctx)
	for _, req := range []string{`{"op":"describe","input":{}}`, `{"op":"nope","input":{}}`, `{"op":"validate","input":` + pod + `}`} {
		a, errA := guarded.HandleJSON(ctx, req)
		b, errB := trusted.HandleJSON(ctx, req)
		if a != b || (errA == nil) != (errB == nil) {
			t.Fatalf("%s: %s %v / %s %v", req, a, errA, b, errB)
		}
	}
	pa, errA := guarded.Prepare(ctx, pod)
	pb, errB := trusted.Prepare(ctx, pod)
	if errA != nil || errB != nil {
		t.Fatalf("prepare: %v %v", errA, errB)
	}
	for code := int32(-1); code < 300; code++ {
		a, errA := guarded.DecideExit(ctx, pa, 0, code)
		b, errB := trusted.DecideExit(ctx, pb, 0, code)
		if a != b || errA != nil || errB != nil {
			t.Fatalf("exit %d: %v %v / %v %v", code, a, errA, b, errB)
		}
	}
}

func TestMemoryBombStoppedAtTheCap(t *testing.T) {
	ctx := context.Background()
	p, err := LoadBytes(ctx, wat(t, "bomb"), Limits{MemoryBytes: 4 << 20, Timeout: time.Second}, "")
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close(ctx)
	if _, _, err := p.Evaluate(ctx, []byte("{}")); !errors.Is(err, ErrMemoryLimit) {
		t.Fatalf("want a memory-limit error, got %v", err)
	}
	if _, err := p.Describe(ctx); err != nil {
		t.Fatal(err)
	}
}

func TestBadModules(t *testing.T) {
	ctx := context.Background()
	if _, err := LoadBytes(ctx, []byte("definitely not wasm"), DefaultLimits(), ""); err == nil ||
		!strings.HasPrefix(err.Error(), "not a valid WebAssembly module") {
		t.Fatalf("garbage: %v", err)
	}
	_, err := LoadBytes(ctx, wat(t, "abi2"), DefaultLimits(), "")
	var mm *AbiMismatchError
	if !errors.As(err, &mm) || mm.Found != 2 ||
		err.Error() != "policy module ABI major version mismatch: the module speaks 2, this host speaks 1" {
		t.Fatalf("abi2: %v", err)
	}
}

func TestComparator(t *testing.T) {
	dec := func(s string) any {
		var v any
		if err := json.Unmarshal([]byte(s), &v); err != nil {
			t.Fatal(err)
		}
		return v
	}
	ok := func(e, r string) error { return Compare(dec(e), dec(r)) }
	if err := ok(`{"a":1}`, `{"a":1.0,"b":2}`); err != nil {
		t.Error(err)
	}
	if ok(`{"a":[1,2]}`, `{"a":[1]}`) == nil {
		t.Error("lists of different length must differ")
	}
	if err := ok(`{"a":{"x":null}}`, `{"a":{}}`); err != nil {
		t.Error("an expected null may be absent:", err)
	}
	if ok(`{"a":"x"}`, `{"a":"y"}`) == nil || ok(`{"a":1}`, `{}`) == nil {
		t.Error("differences must be found")
	}
	got := `{"valid":false,"errors":[{"field":"a","type":"FieldValueRequired","message":"a: Required value"}]}`
	if err := ok(`{"valid":false,"errors":[{"field":"a","type":"FieldValueRequired"}]}`, got); err != nil {
		t.Error(err)
	}
	if err := ok(`{"valid":false,"errors":[]}`, got); err == nil || !strings.Contains(err.Error(), "unexpected error {a, FieldValueRequired}") {
		t.Error("complete error sets must be equal:", err)
	}
	if err := ok(`{"errors":[],"errorsComplete":false}`, got); err != nil {
		t.Error(err)
	}
	if err := ok(`{"errors":[{"field":"b","type":null,"message":"Required"}],"errorsComplete":false}`, got); err != nil {
		t.Error("untyped errors match by message:", err)
	}
	// ...but with a complete set, the typed result error is not one the vector expects (the
	// core's comparator agrees: core/src/conformance.rs).
	if ok(`{"errors":[{"field":"b","type":null,"message":"Required"}]}`, got) == nil {
		t.Error("a complete set must not hold an unexpected typed error")
	}
	if err := ok(`{"errors":[{"field":"b","type":null,"message":"Required"}]}`,
		`{"errors":[{"field":"","type":null,"message":"x: Required value"}]}`); err != nil {
		t.Error(err)
	}
	if err := ok(`{"errors":[{"field":"a","type":"FieldValueInvalid"}]}`, got); err == nil || !strings.Contains(err.Error(), "missing error {a, FieldValueInvalid}") {
		t.Error(err)
	}
	if ok(`{"errorMessages":["nope"]}`, got) == nil {
		t.Error("errorMessages must be found")
	}
	if err := ok(`{"errorMessages":["Required"]}`, got); err != nil {
		t.Error(err)
	}
	if err := CheckResponse(dec(`{"a":1}`), []byte(`{"status":"error","errors":[{"message":"not implemented yet"}]}`)); err == nil ||
		err.Error() != "request failed: not implemented yet" {
		t.Error(err)
	}
}

// TestProcessModuleTable: a later Load of an unchanged, settled file reuses its compiled module;
// a file rewritten with another module (new mtime) and LoadBytes of other bytes never do.
func TestProcessModuleTable(t *testing.T) {
	ctx := context.Background()
	spin, abi2 := wat(t, "spin"), wat(t, "abi2")
	path := filepath.Join(t.TempDir(), "m.wasm")
	limits := Limits{MemoryBytes: 4 << 20, Timeout: time.Second}
	write := func(b []byte, age time.Duration) {
		if err := os.WriteFile(path, b, 0o600); err != nil {
			t.Fatal(err)
		}
		old := time.Now().Add(-age)
		if err := os.Chtimes(path, old, old); err != nil {
			t.Fatal(err)
		}
	}
	write(spin, time.Hour)
	p, err := Load(ctx, path, limits, "")
	if err != nil {
		t.Fatal(err)
	}
	p.Close(ctx)
	s, err := sharedRuntimeFor(ctx, limits, "")
	if err != nil {
		t.Fatal(err)
	}
	first, ok := s.fromFile(path)
	if !ok {
		t.Fatal("a settled file is not found again by its identity")
	}
	p, err = Load(ctx, path, limits, "")
	if err != nil || p.compiled != first {
		t.Fatalf("second load: %v, same compiled module: %v", err, err == nil && p.compiled == first)
	}
	p.Close(ctx)
	// Another module in the same file, with another mtime: the identity no longer matches.
	write(abi2, 2*time.Hour)
	if _, ok := s.fromFile(path); ok {
		t.Fatal("a rewritten file matched its old identity")
	}
	var mm *AbiMismatchError
	if _, err := Load(ctx, path, limits, ""); !errors.As(err, &mm) {
		t.Fatalf("the rewritten file: %v", err)
	}
	// A file modified just now is loaded, but not remembered by identity (it may change again
	// within the file system's timestamp granularity).
	write(spin, 0)
	if p, err = Load(ctx, path, limits, ""); err != nil {
		t.Fatal(err)
	}
	p.Close(ctx)
	if _, ok := s.fromFile(path); ok {
		t.Fatal("an unsettled file was remembered by its identity")
	}
	// By content: the same bytes share a compiled module, other bytes do not.
	a, err := LoadBytes(ctx, spin, limits, "")
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close(ctx)
	if a.compiled != first {
		t.Fatal("the same bytes were compiled again")
	}
	if _, err := LoadBytes(ctx, abi2, limits, ""); !errors.As(err, &mm) {
		t.Fatalf("other bytes: %v", err)
	}
}

// TestInvalidJobWarnings: a Job the API server would refuse (podFailurePolicy rule action Bogus)
// is decided as upstream's code decides it, and its validation errors come back as warnings, in
// the contract's results and on the prepared policy (ABI 1.1); a valid Job has none.
func TestInvalidJobWarnings(t *testing.T) {
	p := load(t)
	ctx := context.Background()
	job := func(action string) string {
		return `{"apiVersion":"batch/v1","kind":"Job","metadata":{"name":"j"},"spec":{` +
			`"podFailurePolicy":{"rules":[{"action":"` + action + `","onExitCodes":{"containerName":"m","operator":"In","values":[3]}}]},` +
			`"template":{"spec":{"restartPolicy":"Never","containers":[{"name":"m","image":"i"}]}}}}`
	}
	const field = "spec.podFailurePolicy.rules[0].action"
	for _, c := range []struct {
		action   string
		decision Action
		warnings int
	}{{"Bogus", 6, 1}, {"FailJob", 3, 0}} {
		body, err := p.HandleJSON(ctx, `{"op":"whatIf","input":{"object":`+job(c.action)+`,"container":"m","exitCode":3}}`)
		if err != nil {
			t.Fatal(err)
		}
		var resp struct {
			Result struct {
				Warnings []Diagnostic `json:"warnings"`
			} `json:"result"`
		}
		if err := json.Unmarshal([]byte(body), &resp); err != nil {
			t.Fatal(err)
		}
		if len(resp.Result.Warnings) != c.warnings {
			t.Fatalf("%s: whatIf warnings %v", c.action, resp.Result.Warnings)
		}
		pr, err := p.Prepare(ctx, `{"object":`+job(c.action)+`}`)
		if err != nil {
			t.Fatal(err)
		}
		if a, err := p.DecideExit(ctx, pr, 0, 3); err != nil || a != c.decision {
			t.Fatalf("%s: decision %v %v", c.action, a, err)
		}
		if len(pr.Warnings) != c.warnings {
			t.Fatalf("%s: prepared warnings %v", c.action, pr.Warnings)
		}
		for _, w := range append(pr.Warnings, resp.Result.Warnings...) {
			if w.Field != field || w.Code == nil || *w.Code != "invalid-object" || w.Severity != "warning" {
				t.Fatalf("%s: warning %+v", c.action, w)
			}
		}
	}
}
