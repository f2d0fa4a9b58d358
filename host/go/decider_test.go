package rkhost

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// Two containers: app restarts on exit code 42 (a container restart rule), sidecar never.
const twoContainers = `{"object":{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"},
  "spec":{"restartPolicy":"Never","containers":[{"name":"app","image":"busybox",
  "restartPolicy":"Never","restartPolicyRules":[{"action":"Restart","exitCodes":{"operator":"In","values":[42]}}]},
  {"name":"sidecar","image":"busybox"}]}},
  "featureGates":{"ContainerRestartRules":true}}`

func decide(t *testing.T, p *Plugin, pr *Prepared, index int, exit int32, restarts uint32) Decision {
	t.Helper()
	d, err := p.Decide(context.Background(), pr, ExitEvent{ContainerIndex: index, ExitCode: exit, RestartCount: restarts})
	if err != nil {
		t.Fatalf("exit %d: %v", exit, err)
	}
	return d
}

// TestDeciderChain: the example decider (WebAssembly text, no Rust) first, the built-in rules
// when it abstains -- the Rust host's decider_chain_custom_first_builtin_when_it_abstains.
func TestDeciderChain(t *testing.T) {
	p := load(t)
	ctx := context.Background()
	pr, err := p.Prepare(ctx, twoContainers)
	if err != nil {
		t.Fatal(err)
	}
	if pr.Index("sidecar") != 1 {
		t.Fatalf("containers %v", pr.Containers)
	}
	// No decider: the built-in answer.
	if d := decide(t, p, pr, 0, 137, 0); d != (Decision{Action: 0, DecidedBy: BuiltIn}) {
		t.Fatalf("no decider: %+v", d)
	}
	example := watFile(t, filepath.Join("..", "..", "plugin", "examples", "deciders", "oom-retry.wat"))
	file := filepath.Join(t.TempDir(), "oom-retry.wasm")
	if err := os.WriteFile(file, example, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := p.AddDecider(ctx, file, ""); err != nil {
		t.Fatal(err)
	}
	if n := p.Deciders(); len(n) != 1 || n[0] != "oom-retry" {
		t.Fatalf("deciders %v", n)
	}
	for _, c := range []struct {
		index    int
		exit     int32
		restarts uint32
		want     Decision
	}{
		{0, 137, 0, Decision{Action: 1, DecidedBy: "oom-retry"}}, // OOM-killed: Restart
		{0, 137, 3, Decision{Action: 0, DecidedBy: "oom-retry"}}, // ... three times at most
		{1, 3, 0, Decision{Action: 0, DecidedBy: "oom-retry"}},   // "bad configuration"
		{0, 42, 0, Decision{Action: 1, DecidedBy: BuiltIn}},      // abstains: the restart rule
		{0, 1, 0, Decision{Action: 0, DecidedBy: BuiltIn}},       // abstains: restartPolicy Never
	} {
		if d := decide(t, p, pr, c.index, c.exit, c.restarts); d != c.want {
			t.Fatalf("container %d exit %d after %d restarts: %+v, want %+v", c.index, c.exit, c.restarts, d, c.want)
		}
	}
	// DecideExit alone never asks the decider.
	if a, err := p.DecideExit(ctx, pr, 0, 137); err != nil || a != 0 {
		t.Fatalf("DecideExit: %v %v", a, err)
	}
	if _, err := p.Decide(ctx, pr, ExitEvent{ContainerIndex: 2, ExitCode: 1}); err == nil {
		t.Fatal("container index out of range accepted")
	}
}

// TestDeciderConfiguredAndRebuiltAfterATimeout: configured before it decides; a runaway decider
// is stopped at the deadline, and its fresh instance is configured again.
func TestDeciderConfiguredAndRebuiltAfterATimeout(t *testing.T) {
	ctx := context.Background()
	limits := DefaultLimits()
	limits.Timeout = 50 * time.Millisecond
	p, err := Load(ctx, pluginPath(t), limits, cacheDir(t))
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close(ctx)
	pr, err := p.Prepare(ctx, twoContainers)
	if err != nil {
		t.Fatal(err)
	}
	if err := p.AddDeciderBytes(ctx, "configurable", wat(t, "configurable"), `{"maxRestarts": 2}`); err != nil {
		t.Fatal(err)
	}
	if d := decide(t, p, pr, 0, 1, 0); d != (Decision{Action: 1, DecidedBy: "configurable"}) {
		t.Fatalf("%+v", d)
	}
	start := time.Now()
	_, err = p.Decide(ctx, pr, ExitEvent{ContainerIndex: 0, ExitCode: 99})
	if !errors.Is(err, ErrTimeout) {
		t.Fatalf("want a timeout, got %v", err)
	}
	if took := time.Since(start); took >= stoppedWithin {
		t.Fatalf("stopped after %v", took)
	}
	if d := decide(t, p, pr, 0, 1, 0); d != (Decision{Action: 1, DecidedBy: "configurable"}) {
		t.Fatalf("after the rebuild: %+v", d)
	}
}

func TestDeciderReturningNonsenseIsAnError(t *testing.T) {
	p := load(t)
	ctx := context.Background()
	pr, err := p.Prepare(ctx, twoContainers)
	if err != nil {
		t.Fatal(err)
	}
	if err := p.AddDeciderBytes(ctx, "bad", wat(t, "decider-nonsense"), ""); err != nil {
		t.Fatal(err)
	}
	if _, err := p.Decide(ctx, pr, ExitEvent{ContainerIndex: 0, ExitCode: 1}); !errors.Is(err, ErrInvalidDecision) {
		t.Fatalf("want an invalid decision, got %v", err)
	}
}

func TestDeciderWithWrongAbiMajorIsRefused(t *testing.T) {
	p := load(t)
	err := p.AddDeciderBytes(context.Background(), "wrong", wat(t, "decider-abi3"), "")
	if err == nil || err.Error() != "decider ABI major version mismatch: the module speaks 3, this host speaks 1" {
		t.Fatalf("%v", err)
	}
	if len(p.Deciders()) != 0 {
		t.Fatalf("deciders %v", p.Deciders())
	}
}
