package rkhost

import (
	"context"
	"encoding/json"
	"errors"
	"os"
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

// BenchmarkDecideExit: the prepared fast path (with an unknown handle while the core's
// PreparedPolicy is a placeholder).
func BenchmarkDecideExit(b *testing.B) {
	p := load(b)
	ctx := context.Background()
	pr, err := p.Prepare(ctx, pod)
	var se *StatusError
	if err == nil {
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			if _, err := p.DecideExit(ctx, pr, 0, int32(i&63)); err != nil {
				b.Fatal(err)
			}
		}
		return
	}
	if !errors.As(err, &se) || se.Status != StatusRejected {
		b.Fatal(err)
	}
	b.Log("placeholder PreparedPolicy: measuring decide_exit with an unknown handle")
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := p.RawDecideExit(ctx, 1, 0, int32(i&63)); err != nil {
			b.Fatal(err)
		}
	}
}

func benchJSON(b *testing.B, req string) {
	p := load(b)
	ctx := context.Background()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := p.HandleJSON(ctx, req); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkJSONDescribe(b *testing.B) { benchJSON(b, `{"op":"describe","input":{}}`) }
func BenchmarkJSONValidateJob(b *testing.B) {
	benchJSON(b, vectorRequest(b, "val-job-valid-pfp"))
}
func BenchmarkJSONContainerRestart(b *testing.B) {
	benchJSON(b, vectorRequest(b, "rr-cr-in-nomatch-fallback"))
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

// BenchmarkLoadFromCache: runtime + compile through the warm compilation cache + instantiate,
// in a process that has loaded the module before (the cache object keeps the compiled code).
func BenchmarkLoadFromCache(b *testing.B) { benchLoad(b, false) }

// BenchmarkLoadFromFileCache: the same as the first Load of a process: the compiled code is
// read back from the cache directory and relinked.
func BenchmarkLoadFromFileCache(b *testing.B) { benchLoad(b, true) }

func benchLoad(b *testing.B, fresh bool) {
	ctx := context.Background()
	bin, err := os.ReadFile(pluginPath(b))
	if err != nil {
		b.Fatal(err)
	}
	dir := cacheDir(b)
	warm, err := LoadBytes(ctx, bin, DefaultLimits(), dir)
	if err != nil {
		b.Fatal(err)
	}
	warm.Close(ctx)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if fresh {
			caches.Delete(dir)
		}
		p, err := LoadBytes(ctx, bin, DefaultLimits(), dir)
		if err != nil {
			b.Fatal(err)
		}
		p.Close(ctx)
	}
}
