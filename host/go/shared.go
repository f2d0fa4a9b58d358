package rkhost

// Process-wide runtimes and compiled modules.
//
// wazero's CompileModule decodes and validates the whole module before it looks in its
// CompilationCache, so a load through that cache still costs time in proportion to the module
// (tens of milliseconds for the policy module). A process that loads the same module again
// (another Plugin, a controller's worker restarting its host) therefore keeps the compiled module
// itself: one wazero Runtime per runtime configuration (memory cap, termination checks, cache
// directory) lives as long as the process, and its compiled modules are found again by the
// file's identity (Load: a stat, no read) or by the module's bytes (LoadBytes: a hash, then an
// exact comparison, so two different modules never share compiled code). A later load is then
// only an instance. The memory this keeps is the compiled code wazero's in-memory cache kept
// already, plus a copy of the module's bytes.

import (
	"bytes"
	"context"
	"hash/maphash"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/tetratelabs/wazero"
)

type runtimeKey struct {
	memoryPages uint32
	trusted     bool
	cacheDir    string
}

type sharedRuntime struct {
	rt wazero.Runtime
	mu sync.Mutex
	// byContent: maphash of the module's bytes -> modules with that hash.
	byContent map[uint64][]*sharedModule
	// byFile: absolute path -> the module last compiled from that file, valid while the file's
	// identity (device, inode, size, modification time) is unchanged.
	byFile map[string]fileEntry
}

type sharedModule struct {
	bin      []byte
	compiled wazero.CompiledModule
}

type fileEntry struct {
	info os.FileInfo
	mod  *sharedModule
}

var (
	runtimesMu sync.Mutex
	runtimes   = map[runtimeKey]*sharedRuntime{}
	hashSeed   = maphash.MakeSeed()
)

// settled is how old a file's modification time must be before its identity stands for its
// content: a file written twice within the file system's timestamp granularity would otherwise
// keep an old identity with new bytes.
const settled = time.Second

func sharedRuntimeFor(ctx context.Context, limits Limits, cacheDir string) (*sharedRuntime, error) {
	key := runtimeKey{memoryPages: uint32(limits.MemoryBytes / 65536), trusted: limits.Trusted, cacheDir: cacheDir}
	runtimesMu.Lock()
	defer runtimesMu.Unlock()
	if s := runtimes[key]; s != nil {
		return s, nil
	}
	cfg := wazero.NewRuntimeConfig().
		WithCloseOnContextDone(!limits.Trusted).
		WithMemoryLimitPages(key.memoryPages)
	if cacheDir != "" {
		cache, err := compilationCache(cacheDir)
		if err != nil {
			return nil, err
		}
		cfg = cfg.WithCompilationCache(cache)
	}
	s := &sharedRuntime{rt: wazero.NewRuntimeWithConfig(ctx, cfg), byContent: map[uint64][]*sharedModule{}, byFile: map[string]fileEntry{}}
	runtimes[key] = s
	return s, nil
}

// fromFile is the module compiled from the file at path, if the file has not changed since.
func (s *sharedRuntime) fromFile(path string) (wazero.CompiledModule, bool) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, false
	}
	info, err := os.Stat(abs)
	if err != nil {
		return nil, false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	e, ok := s.byFile[abs]
	if !ok || !os.SameFile(e.info, info) || e.info.Size() != info.Size() || !e.info.ModTime().Equal(info.ModTime()) {
		return nil, false
	}
	return e.mod.compiled, true
}

// compile is the compiled module for bin: from this runtime's table, else compiled (through the
// compilation cache) and kept. With a path and info (the file bin was read from, stat before the
// read), a settled file's identity is remembered too.
func (s *sharedRuntime) compile(ctx context.Context, bin []byte, path string, info os.FileInfo) (wazero.CompiledModule, error) {
	h := maphash.Bytes(hashSeed, bin)
	s.mu.Lock()
	var mod *sharedModule
	for _, m := range s.byContent[h] {
		if bytes.Equal(m.bin, bin) {
			mod = m
			break
		}
	}
	s.mu.Unlock()
	if mod == nil {
		compiled, err := s.rt.CompileModule(ctx, bin)
		if err != nil {
			return nil, err
		}
		mod = &sharedModule{bin: bytes.Clone(bin), compiled: compiled}
		s.mu.Lock()
		s.byContent[h] = append(s.byContent[h], mod)
		s.mu.Unlock()
	}
	if path != "" && info != nil && time.Since(info.ModTime()) > settled {
		if abs, err := filepath.Abs(path); err == nil {
			s.mu.Lock()
			s.byFile[abs] = fileEntry{info: info, mod: mod}
			s.mu.Unlock()
		}
	}
	return mod.compiled, nil
}

// forgetProcessModules closes every shared runtime: the next load starts as the first one of a
// process (benchmarks of that case; tests). No Plugin may be open.
func forgetProcessModules(ctx context.Context) {
	runtimesMu.Lock()
	defer runtimesMu.Unlock()
	for k, s := range runtimes {
		s.rt.Close(ctx)
		delete(runtimes, k)
	}
}
