package rkhost

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

func vectorRequest(b *testing.B, id string) string {
	for _, f := range vectorFiles(b) {
		vs, err := ReadVectors(f)
		if err != nil {
			b.Fatal(err)
		}
		for _, v := range vs {
			if v.ID == id {
				r, _ := json.Marshal(map[string]any{"op": v.Op, "input": v.Input})
				return string(r)
			}
		}
	}
	b.Fatalf("no vector %s", id)
	return ""
}

// modes: every benchmark of a call runs against the default (guarded) host, whose calls
// Limits.Timeout bounds, and a Trusted one (no termination checks; see Limits.Trusted).
var modes = []struct {
	name    string
	trusted bool
}{{"guarded", false}, {"trusted", true}}

func loadMode(b *testing.B, trusted bool) *Plugin {
	ctx := context.Background()
	limits := DefaultLimits()
	limits.Trusted = trusted
	p, err := Load(ctx, pluginPath(b), limits, cacheDir(b))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { p.Close(ctx) })
	return p
}

// BenchmarkDecideExit: the prepared fast path, context.Background (the usual call of a
// controller), alternating a matching and a non-matching exit code.
func BenchmarkDecideExit(b *testing.B) {
	for _, m := range modes {
		b.Run(m.name, func(b *testing.B) {
			p := loadMode(b, m.trusted)
			ctx := context.Background()
			pr, err := p.Prepare(ctx, pod)
			if err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if _, err := p.DecideExit(ctx, pr, 0, int32(i&63)); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func benchJSON(b *testing.B, req string) {
	for _, m := range modes {
		b.Run(m.name, func(b *testing.B) {
			p := loadMode(b, m.trusted)
			ctx := context.Background()
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if _, err := p.HandleJSON(ctx, req); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkJSONDescribe(b *testing.B) { benchJSON(b, `{"op":"describe","input":{}}`) }
func BenchmarkJSONValidateJob(b *testing.B) {
	benchJSON(b, vectorRequest(b, "val-job-valid-pfp"))
}
func BenchmarkJSONContainerRestart(b *testing.B) {
	benchJSON(b, vectorRequest(b, "rr-cr-in-nomatch-fallback"))
}

// BenchmarkDecideChain: Decide with the example decider (plugin/examples/deciders/oom-retry.wat)
// in front of the built-in rules. "decider" is answered by the decider (exit 137), "abstain"
// asks it and then the built-in rules (exit 42).
func BenchmarkDecideChain(b *testing.B) {
	for _, m := range modes {
		p := loadMode(b, m.trusted)
		ctx := context.Background()
		pr, err := p.Prepare(ctx, twoContainers)
		if err != nil {
			b.Fatal(err)
		}
		if err := p.AddDecider(ctx, exampleDecider(b), ""); err != nil {
			b.Fatal(err)
		}
		for _, c := range []struct {
			name string
			exit int32
		}{{"decider", 137}, {"abstain", 42}} {
			b.Run(m.name+"/"+c.name, func(b *testing.B) {
				b.ReportAllocs()
				for i := 0; i < b.N; i++ {
					if _, err := p.Decide(ctx, pr, ExitEvent{ContainerIndex: 0, ExitCode: c.exit}); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// BenchmarkInstantiate: a fresh instance from the compiled module (what follows a trap).
func BenchmarkInstantiate(b *testing.B) {
	p := load(b)
	ctx := context.Background()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if err := p.Reinstantiate(ctx); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkLoadFromCache: Load of the plugin file in a process that has loaded it before: the
// compiled module is found by the file's identity (a stat, no read), then an instance with its
// ABI checks -- "instantiation from the cache".
func BenchmarkLoadFromCache(b *testing.B) { benchLoad(b, "file") }

// BenchmarkLoadBytesFromCache: the same from the module's bytes (LoadBytes): hash and compare
// the bytes instead of the stat.
func BenchmarkLoadBytesFromCache(b *testing.B) { benchLoad(b, "bytes") }

// BenchmarkLoadFromFileCache: the first Load of a process: a new runtime, the module decoded
// and validated by wazero's CompileModule, its compiled code read back from the cache directory
// and relinked, then an instance.
func BenchmarkLoadFromFileCache(b *testing.B) { benchLoad(b, "first") }

func benchLoad(b *testing.B, how string) {
	ctx := context.Background()
	path := pluginPath(b)
	bin, err := os.ReadFile(path)
	if err != nil {
		b.Fatal(err)
	}
	dir := cacheDir(b)
	warm, err := Load(ctx, path, DefaultLimits(), dir)
	if err != nil {
		b.Fatal(err)
	}
	warm.Close(ctx)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		var p *Plugin
		switch how {
		case "bytes":
			p, err = LoadBytes(ctx, bin, DefaultLimits(), dir)
		case "first":
			b.StopTimer()
			forgetProcessModules(ctx)
			caches.Delete(dir)
			b.StartTimer()
			p, err = Load(ctx, path, DefaultLimits(), dir)
		default:
			p, err = Load(ctx, path, DefaultLimits(), dir)
		}
		if err != nil {
			b.Fatal(err)
		}
		p.Close(ctx)
	}
}

// exampleDecider is plugin/examples/deciders/oom-retry.wat compiled into a temporary file.
func exampleDecider(b *testing.B) string {
	bin := watFile(b, filepath.Join("..", "..", "plugin", "examples", "deciders", "oom-retry.wat"))
	path := filepath.Join(b.TempDir(), "oom-retry.wasm")
	if err := os.WriteFile(path, bin, 0o600); err != nil {
		b.Fatal(err)
	}
	return path
}
