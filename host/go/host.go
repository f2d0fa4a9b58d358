// Package rkhost loads the restartkit policy module (plugin ABI v1, plugin/ABI.md) with wazero,
// a pure-Go WebAssembly runtime: the core JSON contract, the prepared fast path, and the
// conformance vectors, from Go with no cgo.
package rkhost

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
	"github.com/tetratelabs/wazero/sys"
)

// Status is a transport status code of plugin ABI v1.
type Status int32

// Its codes and names (StatusOK, statusNames, ...) are generated: actions_gen.go.

func (s Status) String() string {
	if n, ok := statusNames[s]; ok {
		return n
	}
	return fmt.Sprintf("status-%d", int32(s))
}

// Action is a decision code (ABI.md, "Action codes").
type Action uint8

func (a Action) String() string {
	if int(a) < len(actionNames) {
		return actionNames[a]
	}
	return fmt.Sprintf("Action(%d)", a)
}

// Limits bound one instance and one call.
type Limits struct {
	MemoryBytes uint64 // cap on linear memory
	// Timeout is the deadline of one call (Evaluate, Describe, Prepare, DecideExit, Decide,
	// Release); a guest still running then is stopped and its instance discarded (ErrTimeout).
	// 0: no deadline of the host's own, only the caller's context.
	Timeout time.Duration
	// Trusted compiles the module without wazero's termination checks, for a module you built or
	// verified yourself (for instance the restartkit plugin of a known SHA-256). Calls get much
	// cheaper (wazero's WithCloseOnContextDone runs a goroutine per call and leaves the machine
	// code for Go at every loop back-edge), but then neither Timeout nor a context can stop a
	// guest that does not return: a runaway guest blocks its goroutine for good.
	Trusted bool
}

// DefaultLimits are the recommended limits of ABI.md: 64 MiB, 1 s.
func DefaultLimits() Limits { return Limits{MemoryBytes: 64 << 20, Timeout: time.Second} }

// Errors of the host, to be tested with errors.Is / errors.As.
var (
	ErrTimeout     = errors.New("the plugin call ran past its deadline")
	ErrMemoryLimit = errors.New("the plugin hit its memory cap")
	ErrNotAPlugin  = errors.New("not a restartkit plugin")
)

// StatusError is a transport status reported by the guest, with its JSON detail.
type StatusError struct {
	Status Status
	Detail string
}

func (e *StatusError) Error() string {
	if e.Detail == "" {
		return fmt.Sprintf("the plugin answered status %d (%s)", int32(e.Status), e.Status)
	}
	return fmt.Sprintf("the plugin answered status %d (%s): %s", int32(e.Status), e.Status, e.Detail)
}

// AbiMismatchError: the module speaks another ABI major.
type AbiMismatchError struct {
	Found, Expected int32
	// Kind is "decider" for a custom decider; empty for the policy module.
	Kind string
}

func (e *AbiMismatchError) Error() string {
	kind := e.Kind
	if kind == "" {
		kind = "policy module"
	}
	return fmt.Sprintf("%s ABI major version mismatch: the module speaks %d, this host speaks %d", kind, e.Found, e.Expected)
}

// TrapError: the guest trapped (an internal error of the plugin); the instance was discarded.
type TrapError struct{ Err error }

func (e *TrapError) Error() string { return "the plugin trapped (internal error): " + e.Err.Error() }
func (e *TrapError) Unwrap() error { return e.Err }

type exports struct {
	alloc, free, describe, evaluate, errorDetail, prepare, containers, decide, release api.Function
	// warnings is restartkit_prepared_warnings (ABI 1.1); nil for a 1.0 module.
	warnings api.Function
}

// Plugin is the policy module in a wazero runtime. Not safe for concurrent use.
type Plugin struct {
	rt       wazero.Runtime
	compiled wazero.CompiledModule
	limits   Limits
	mod      api.Module
	fn       exports
	gen      uint64
	prepared map[int]*entry
	nextID   int
	stack    []uint64
	deciders []*decider
	// wd enforces limits.Timeout on every call; nil when there is none (Timeout 0 or Trusted).
	wd *watchdog
}

type entry struct {
	request []byte
	handle  int32
	gen     uint64
}

// Prepared is a policy compiled in the plugin for DecideExit.
type Prepared struct {
	id         int
	Containers []string
	// Warnings are the prepared object's validation errors (code "invalid-object"): the API
	// server would refuse it, and the decisions are what upstream's code makes for it anyway.
	// Empty for a valid object, and for a module of ABI minor 0, which cannot tell.
	Warnings []Diagnostic
}

// Diagnostic is restartkit's one diagnostic shape (docs/contract.md, "Diagnostic").
type Diagnostic struct {
	Severity string  `json:"severity"`
	Field    string  `json:"field"`
	Type     *string `json:"type"`
	Message  string  `json:"message"`
	Detail   *string `json:"detail,omitempty"`
	BadValue any     `json:"badValue,omitempty"`
	Origin   string  `json:"origin"`
	Code     *string `json:"code,omitempty"`
	Line     *int    `json:"line,omitempty"`
	Column   *int    `json:"column,omitempty"`
	Document *int    `json:"document,omitempty"`
}

// Index is the position of the named container, or -1.
func (p *Prepared) Index(name string) int {
	for i, c := range p.Containers {
		if c == name {
			return i
		}
	}
	return -1
}

// Load compiles (through the compilation cache in cacheDir, if not empty) and instantiates the
// module at path.
//
// The compiled module is kept for the rest of the process (see shared.go): loading the same,
// unchanged file again costs a stat and an instance.
func Load(ctx context.Context, path string, limits Limits, cacheDir string) (*Plugin, error) {
	s, err := sharedRuntimeFor(ctx, limits, cacheDir)
	if err != nil {
		return nil, err
	}
	if compiled, ok := s.fromFile(path); ok {
		return newPlugin(ctx, s.rt, compiled, limits)
	}
	info, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	bin, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return loadCompiled(ctx, s, bin, limits, path, info)
}

// LoadBytes is Load from the module's bytes (kept for the rest of the process too, found again by
// their content).
func LoadBytes(ctx context.Context, bin []byte, limits Limits, cacheDir string) (*Plugin, error) {
	s, err := sharedRuntimeFor(ctx, limits, cacheDir)
	if err != nil {
		return nil, err
	}
	return loadCompiled(ctx, s, bin, limits, "", nil)
}

func loadCompiled(ctx context.Context, s *sharedRuntime, bin []byte, limits Limits, path string, info os.FileInfo) (*Plugin, error) {
	compiled, err := s.compile(ctx, bin, path, info)
	if err != nil {
		return nil, fmt.Errorf("not a valid WebAssembly module: %w", err)
	}
	return newPlugin(ctx, s.rt, compiled, limits)
}

func newPlugin(ctx context.Context, rt wazero.Runtime, compiled wazero.CompiledModule, limits Limits) (*Plugin, error) {
	if imps := compiled.ImportedFunctions(); len(imps) > 0 {
		return nil, fmt.Errorf("%w: plugin ABI v1 modules import nothing, this one imports %d functions", ErrNotAPlugin, len(imps))
	}
	p := &Plugin{rt: rt, compiled: compiled, limits: limits, prepared: map[int]*entry{}, stack: make([]uint64, 3)}
	if !limits.Trusted && limits.Timeout > 0 {
		p.wd = newWatchdog(limits.Timeout)
	}
	err := p.instantiate(p.enter(ctx))
	p.leave()
	if err != nil {
		p.Close(ctx)
		return nil, err
	}
	return p, nil
}

// caches holds one wazero CompilationCache per directory for the whole process: a cache object
// keeps the compiled code in memory, so a second Load of the same module in this process skips
// reading and relinking the cached machine code (which is most of a load from the file cache).
var caches sync.Map

func compilationCache(dir string) (wazero.CompilationCache, error) {
	if c, ok := caches.Load(dir); ok {
		return c.(wazero.CompilationCache), nil
	}
	c, err := wazero.NewCompilationCacheWithDir(dir)
	if err != nil {
		return nil, err
	}
	actual, _ := caches.LoadOrStore(dir, c)
	return actual.(wazero.CompilationCache), nil
}

// Close frees the Plugin's instances and deciders (the compiled policy module stays with the
// process, see Load).
func (p *Plugin) Close(ctx context.Context) error {
	if p.wd != nil {
		p.wd.close()
	}
	var first error
	keep := func(err error) {
		if first == nil {
			first = err
		}
	}
	if p.mod != nil {
		keep(p.mod.Close(ctx))
		p.mod = nil
	}
	for _, d := range p.deciders {
		if d.mod != nil {
			keep(d.mod.Close(ctx))
			d.mod = nil
		}
		keep(d.compiled.Close(ctx))
	}
	p.deciders = nil
	return first
}

// enter begins a call under limits.Timeout and returns the context the guest must run under;
// every enter is paired with a leave.
func (p *Plugin) enter(ctx context.Context) context.Context {
	if p.wd == nil {
		return ctx
	}
	return p.wd.enter(ctx)
}

func (p *Plugin) leave() {
	if p.wd != nil {
		p.wd.leave()
	}
}

func (p *Plugin) instantiate(ctx context.Context) error {
	mod, err := p.rt.InstantiateModule(ctx, p.compiled, wazero.NewModuleConfig().WithName("").WithStartFunctions())
	if err != nil {
		return fmt.Errorf("cannot instantiate the module: %w", err)
	}
	get := func(name string) (api.Function, error) {
		f := mod.ExportedFunction(name)
		if f == nil {
			return nil, fmt.Errorf("%w: no export %q", ErrNotAPlugin, name)
		}
		return f, nil
	}
	ver, err := get("restartkit_abi_version")
	if err != nil {
		mod.Close(ctx)
		return err
	}
	r, err := ver.Call(ctx)
	if err != nil || len(r) != 1 {
		mod.Close(ctx)
		return fmt.Errorf("%w: restartkit_abi_version failed: %v", ErrNotAPlugin, err)
	}
	if major := int32(uint32(r[0])); major != ABIMajor {
		mod.Close(ctx)
		return &AbiMismatchError{Found: major, Expected: ABIMajor}
	}
	if mod.Memory() == nil {
		mod.Close(ctx)
		return fmt.Errorf("%w: no exported memory", ErrNotAPlugin)
	}
	names := []string{"restartkit_alloc", "restartkit_free", "restartkit_describe", "restartkit_evaluate",
		"restartkit_error_detail", "restartkit_prepare", "restartkit_prepared_containers",
		"restartkit_decide_exit", "restartkit_release"}
	fns := make([]api.Function, len(names))
	for i, n := range names {
		if fns[i], err = get(n); err != nil {
			mod.Close(ctx)
			return err
		}
	}
	p.mod = mod
	p.fn = exports{fns[0], fns[1], fns[2], fns[3], fns[4], fns[5], fns[6], fns[7], fns[8], nil}
	// Added in ABI minor 1; a 1.0 module simply lacks it.
	p.fn.warnings = mod.ExportedFunction("restartkit_prepared_warnings")
	return nil
}

// Rebuilds counts the instances discarded after a trap or timeout.
func (p *Plugin) Rebuilds() uint64 { return p.gen }

// MemorySize is the size of the live instance's memory in bytes (0 when none is live).
func (p *Plugin) MemorySize() uint32 {
	if p.mod == nil {
		return 0
	}
	return p.mod.Memory().Size()
}

// Reinstantiate drops the instance and makes a new one from the compiled module.
func (p *Plugin) Reinstantiate(ctx context.Context) error {
	if p.mod != nil {
		p.mod.Close(ctx)
		p.mod = nil
	}
	p.gen++
	return p.instantiate(ctx)
}

// fail classifies an error from a wasm call and discards the instance.
func (p *Plugin) fail(ctx context.Context, err error) error {
	mem := uint64(0)
	if p.mod != nil {
		mem = uint64(p.mod.Memory().Size())
		p.mod.Close(ctx)
		p.mod = nil
	}
	p.gen++
	return classify(err, mem, p.limits)
}

// classify turns an error from a wasm call into a typed one: a timeout, the memory cap (memory
// within a page of it), or a trap.
func classify(err error, mem uint64, limits Limits) error {
	var exit *sys.ExitError
	if errors.As(err, &exit) && (exit.ExitCode() == sys.ExitCodeDeadlineExceeded || exit.ExitCode() == sys.ExitCodeContextCanceled) {
		return fmt.Errorf("%w (%v): %v", ErrTimeout, limits.Timeout, err)
	}
	if mem+65536 > limits.MemoryBytes {
		return fmt.Errorf("%w of %d bytes: %v", ErrMemoryLimit, limits.MemoryBytes, err)
	}
	return &TrapError{Err: err}
}

func (p *Plugin) live(ctx context.Context) error {
	if p.mod == nil {
		return p.instantiate(ctx)
	}
	return nil
}

func unpack(r uint64) (uint32, uint32) { return uint32(r >> 32), uint32(r) }

func (p *Plugin) read(ptr, n uint32) ([]byte, error) {
	b, ok := p.mod.Memory().Read(ptr, n)
	if !ok {
		return nil, fmt.Errorf("the plugin broke the ABI: output (%d, %d) lies outside linear memory", ptr, n)
	}
	return append([]byte(nil), b...), nil
}

// put copies bytes into a fresh guest buffer.
func (p *Plugin) put(ctx context.Context, b []byte) (uint32, uint32, error) {
	if len(b) == 0 {
		return 0, 0, nil
	}
	if uint64(len(b)) > p.limits.MemoryBytes {
		return 0, 0, fmt.Errorf("%w of %d bytes (input of %d bytes)", ErrMemoryLimit, p.limits.MemoryBytes, len(b))
	}
	r, err := p.fn.alloc.Call(ctx, uint64(len(b)))
	if err != nil {
		return 0, 0, p.fail(ctx, err)
	}
	ptr := uint32(r[0])
	if ptr == 0 {
		return 0, 0, fmt.Errorf("%w of %d bytes (input of %d bytes)", ErrMemoryLimit, p.limits.MemoryBytes, len(b))
	}
	if !p.mod.Memory().Write(ptr, b) {
		return 0, 0, fmt.Errorf("the plugin broke the ABI: restartkit_alloc gave a bad buffer")
	}
	return ptr, uint32(len(b)), nil
}

func (p *Plugin) detail(ctx context.Context) (string, error) {
	r, err := p.fn.errorDetail.Call(ctx)
	if err != nil {
		return "", p.fail(ctx, err)
	}
	ptr, n := unpack(r[0])
	if ptr == 0 {
		return "", nil
	}
	b, err := p.read(ptr, n)
	return string(b), err
}

// answer turns a packed result into (status, body); host-owned outputs are freed.
func (p *Plugin) answer(ctx context.Context, r uint64) (Status, string, error) {
	ptr, n := unpack(r)
	if ptr == 0 {
		d, err := p.detail(ctx)
		return Status(int32(n)), d, err
	}
	b, err := p.read(ptr, n)
	if err != nil {
		return 0, "", err
	}
	if _, err := p.fn.free.Call(ctx, uint64(ptr), uint64(n)); err != nil {
		return 0, "", p.fail(ctx, err)
	}
	return StatusOK, string(b), nil
}

// Evaluate is the raw one-shot call: with StatusOK the body is the contract response, otherwise
// the JSON error response that explains the status.
func (p *Plugin) Evaluate(ctx context.Context, request []byte) (Status, string, error) {
	ctx = p.enter(ctx)
	defer p.leave()
	if err := p.live(ctx); err != nil {
		return 0, "", err
	}
	ptr, n, err := p.put(ctx, request)
	if err != nil {
		return 0, "", err
	}
	r, err := p.fn.evaluate.Call(ctx, uint64(ptr), uint64(n))
	if err != nil {
		return 0, "", p.fail(ctx, err)
	}
	if _, err := p.fn.free.Call(ctx, uint64(ptr), uint64(n)); err != nil {
		return 0, "", p.fail(ctx, err)
	}
	return p.answer(ctx, r[0])
}

// HandleJSON answers what restartkit::handle_json answers natively; an error only for what the
// native function cannot suffer (timeouts, limits, traps, ABI breaches).
func (p *Plugin) HandleJSON(ctx context.Context, request string) (string, error) {
	st, body, err := p.Evaluate(ctx, []byte(request))
	if err != nil {
		return "", err
	}
	switch {
	case st == StatusOK:
		return body, nil
	case (st == StatusInvalidJSON || st == StatusUnknownOperation || st == StatusUnsupportedVersion) && body != "":
		return body, nil
	default:
		return "", &StatusError{Status: st, Detail: body}
	}
}

// Describe returns the module's capabilities (JSON).
func (p *Plugin) Describe(ctx context.Context) (string, error) {
	ctx = p.enter(ctx)
	defer p.leave()
	if err := p.live(ctx); err != nil {
		return "", err
	}
	r, err := p.fn.describe.Call(ctx)
	if err != nil {
		return "", p.fail(ctx, err)
	}
	st, body, err := p.answer(ctx, r[0])
	if err == nil && st != StatusOK {
		err = &StatusError{Status: st, Detail: body}
	}
	return body, err
}

func (p *Plugin) guestPrepare(ctx context.Context, request []byte) (int32, error) {
	ctx = p.enter(ctx)
	defer p.leave()
	if err := p.live(ctx); err != nil {
		return 0, err
	}
	ptr, n, err := p.put(ctx, request)
	if err != nil {
		return 0, err
	}
	r, err := p.fn.prepare.Call(ctx, uint64(ptr), uint64(n))
	if err != nil {
		return 0, p.fail(ctx, err)
	}
	if _, err := p.fn.free.Call(ctx, uint64(ptr), uint64(n)); err != nil {
		return 0, p.fail(ctx, err)
	}
	h := int32(uint32(r[0]))
	if h > 0 {
		return h, nil
	}
	d, _ := p.detail(ctx)
	return 0, &StatusError{Status: Status(-h), Detail: d}
}

// Prepare compiles {"object": Pod|Job, "kubernetesVersion"?, "featureGates"?} for DecideExit.
func (p *Plugin) Prepare(ctx context.Context, request string) (*Prepared, error) {
	ctx = p.enter(ctx)
	defer p.leave()
	h, err := p.guestPrepare(ctx, []byte(request))
	if err != nil {
		return nil, err
	}
	var names []string
	if err := p.preparedJSON(ctx, p.fn.containers, "restartkit_prepared_containers", h, &names); err != nil {
		return nil, err
	}
	var warnings []Diagnostic
	// restartkit_prepared_warnings is ABI 1.1: a 1.0 module has none to give.
	if p.fn.warnings != nil {
		if err := p.preparedJSON(ctx, p.fn.warnings, "restartkit_prepared_warnings", h, &warnings); err != nil {
			return nil, err
		}
	}
	p.nextID++
	p.prepared[p.nextID] = &entry{request: []byte(request), handle: h, gen: p.gen}
	return &Prepared{id: p.nextID, Containers: names, Warnings: warnings}, nil
}

// preparedJSON calls an export that answers a JSON document about prepared handle h (its
// container names, its warnings) and decodes it into out.
func (p *Plugin) preparedJSON(ctx context.Context, fn api.Function, name string, h int32, out any) error {
	r, err := fn.Call(ctx, uint64(uint32(h)))
	if err != nil {
		return p.fail(ctx, err)
	}
	st, body, err := p.answer(ctx, r[0])
	if err != nil {
		return err
	}
	if st != StatusOK {
		return &StatusError{Status: st, Detail: body}
	}
	if err := jsonUnmarshal([]byte(body), out); err != nil {
		return fmt.Errorf("the plugin broke the ABI: %s: %w", name, err)
	}
	return nil
}

var errUnknownPrepared = errors.New("this prepared policy is not (or no longer) held by this plugin")

// DecideExit is the built-in decision for container index exiting with exitCode. With a context
// that cannot end (context.Background) it allocates nothing; limits.Timeout bounds it through
// the Plugin's watchdog, not a timer per call.
func (p *Plugin) DecideExit(ctx context.Context, pr *Prepared, index int, exitCode int32) (Action, error) {
	ctx = p.enter(ctx)
	defer p.leave()
	e := p.prepared[pr.id]
	if e == nil {
		return 0, errUnknownPrepared
	}
	if e.gen != p.gen || p.mod == nil {
		h, err := p.guestPrepare(ctx, e.request)
		if err != nil {
			return 0, err
		}
		e.handle, e.gen = h, p.gen
	}
	code, err := p.RawDecideExit(ctx, e.handle, int32(index), exitCode)
	if err != nil {
		return 0, err
	}
	if code < 0 {
		return 0, &StatusError{Status: Status(-code)}
	}
	return Action(code), nil
}

// RawDecideExit calls restartkit_decide_exit with a raw guest handle.
func (p *Plugin) RawDecideExit(ctx context.Context, handle, index, exitCode int32) (int32, error) {
	ctx = p.enter(ctx)
	defer p.leave()
	if err := p.live(ctx); err != nil {
		return 0, err
	}
	p.stack[0], p.stack[1], p.stack[2] = uint64(uint32(handle)), uint64(uint32(index)), uint64(uint32(exitCode))
	if err := p.fn.decide.CallWithStack(ctx, p.stack); err != nil {
		return 0, p.fail(ctx, err)
	}
	return int32(uint32(p.stack[0])), nil
}

// Release drops a prepared policy.
func (p *Plugin) Release(ctx context.Context, pr *Prepared) error {
	e := p.prepared[pr.id]
	if e == nil {
		return errUnknownPrepared
	}
	delete(p.prepared, pr.id)
	if e.gen != p.gen || p.mod == nil {
		return nil
	}
	ctx = p.enter(ctx)
	defer p.leave()
	r, err := p.fn.release.Call(ctx, uint64(uint32(e.handle)))
	if err != nil {
		return p.fail(ctx, err)
	}
	if code := int32(uint32(r[0])); code != 0 {
		return &StatusError{Status: Status(-code)}
	}
	return nil
}

// DefaultPluginPath: $RESTARTKIT_PLUGIN, else the cargo layout under $CARGO_TARGET_DIR (or
// $HOME/.cache/restartkit/target).
func DefaultPluginPath() string {
	if p := os.Getenv("RESTARTKIT_PLUGIN"); p != "" {
		return p
	}
	t := os.Getenv("CARGO_TARGET_DIR")
	if t == "" {
		t = strings.TrimSuffix(os.Getenv("HOME"), "/") + "/.cache/restartkit/target"
	}
	return t + "/wasm32-unknown-unknown/release/restartkit_plugin.wasm"
}
