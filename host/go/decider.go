package rkhost

// Custom deciders (plugin/ABI.md, "Custom deciders"): small user modules asked before the
// built-in rules. The chain is the Rust host's: each decider in the order added; the first that
// answers Restart or DoNotRestart decides; when all abstain, restartkit_decide_exit does.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
)

// DeciderABIMajor is the decider ABI major this host speaks.
const DeciderABIMajor = 1

// ErrInvalidDecision: a decider answered something other than 1, 0 or -1.
var ErrInvalidDecision = errors.New("invalid decision")

// ExitEvent is one container exit, as a decider sees it.
type ExitEvent struct {
	// ContainerIndex is the index in Prepared.Containers (containers, then init containers).
	ContainerIndex int
	ExitCode       int32
	// RestartCount is how many times this container has been restarted.
	RestartCount uint32
}

// BuiltIn is Decision.DecidedBy when the built-in rules decided.
const BuiltIn = ""

// Decision is the chained decision and who made it: a decider's name, or BuiltIn.
type Decision struct {
	Action    Action
	DecidedBy string
}

type decider struct {
	name     string
	compiled wazero.CompiledModule
	// config is the configuration JSON handed to restartkit_decider_configure (nil: none).
	config json.RawMessage
	mod    api.Module
	decide api.Function
	// alloc and configure are nil when the decider takes no configuration.
	alloc, configure api.Function
	// configuredFor is the Prepared id whose containers the live instance was configured with.
	configuredFor int
	// stack holds restartkit_decide's three parameters, then its result.
	stack [3]uint64
}

// AddDecider adds the decider module (binary WebAssembly) at path behind those already added; it
// is named after the file. config, when not empty, is handed to restartkit_decider_configure
// (as JSON if it parses, else as a JSON string, like the Rust host).
func (p *Plugin) AddDecider(ctx context.Context, path, config string) error {
	bin, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	name := strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
	return p.AddDeciderBytes(ctx, name, bin, config)
}

// AddDeciderBytes is AddDecider from the module's bytes. The decider runs in the plugin's
// runtime, under the same limits; a module that imports anything or speaks another decider ABI
// major is refused.
func (p *Plugin) AddDeciderBytes(ctx context.Context, name string, bin []byte, config string) error {
	compiled, err := p.rt.CompileModule(ctx, bin)
	if err != nil {
		return fmt.Errorf("decider %s: not a valid WebAssembly module: %w", name, err)
	}
	if imps := compiled.ImportedFunctions(); len(imps) > 0 {
		compiled.Close(ctx)
		return fmt.Errorf("%w: decider %s imports %d functions; deciders import nothing", ErrNotAPlugin, name, len(imps))
	}
	d := &decider{name: name, compiled: compiled}
	if config != "" {
		if json.Valid([]byte(config)) {
			d.config = json.RawMessage(config)
		} else {
			d.config, _ = json.Marshal(config)
		}
	}
	if err := p.instantiateDecider(ctx, d); err != nil {
		compiled.Close(ctx)
		return err
	}
	p.deciders = append(p.deciders, d)
	return nil
}

// Deciders are the deciders' names, in the order they are asked.
func (p *Plugin) Deciders() []string {
	names := make([]string, len(p.deciders))
	for i, d := range p.deciders {
		names[i] = d.name
	}
	return names
}

func (p *Plugin) instantiateDecider(ctx context.Context, d *decider) error {
	ctx = p.enter(ctx)
	defer p.leave()
	mod, err := p.rt.InstantiateModule(ctx, d.compiled, wazero.NewModuleConfig().WithName("").WithStartFunctions())
	if err != nil {
		return fmt.Errorf("decider %s: cannot instantiate the module: %w", d.name, err)
	}
	fail := func(err error) error {
		mod.Close(ctx)
		return err
	}
	ver := mod.ExportedFunction("restartkit_decider_abi_version")
	if ver == nil {
		return fail(fmt.Errorf("%w: decider %s has no export \"restartkit_decider_abi_version\"", ErrNotAPlugin, d.name))
	}
	r, err := ver.Call(ctx)
	if err != nil || len(r) != 1 {
		return fail(fmt.Errorf("%w: decider %s: restartkit_decider_abi_version failed: %v", ErrNotAPlugin, d.name, err))
	}
	if major := int32(uint32(r[0])); major != DeciderABIMajor {
		return fail(&AbiMismatchError{Found: major, Expected: DeciderABIMajor, Kind: "decider"})
	}
	decide := mod.ExportedFunction("restartkit_decide")
	if decide == nil {
		return fail(fmt.Errorf("%w: decider %s has no export \"restartkit_decide\"", ErrNotAPlugin, d.name))
	}
	var alloc, configure api.Function
	if configure = mod.ExportedFunction("restartkit_decider_configure"); configure != nil {
		if mod.Memory() == nil {
			return fail(fmt.Errorf("%w: decider %s: a decider with restartkit_decider_configure must export its memory", ErrNotAPlugin, d.name))
		}
		if alloc = mod.ExportedFunction("restartkit_decider_alloc"); alloc == nil {
			return fail(fmt.Errorf("%w: decider %s has no export \"restartkit_decider_alloc\"", ErrNotAPlugin, d.name))
		}
	}
	d.mod, d.decide, d.alloc, d.configure, d.configuredFor = mod, decide, alloc, configure, 0
	return nil
}

// ask is one decider's answer (1, 0 or -1) for ev under pr; a trap or timeout discards its
// instance (the next call makes a fresh one, configured again).
func (p *Plugin) ask(ctx context.Context, d *decider, pr *Prepared, ev ExitEvent) (int32, error) {
	if d.mod == nil {
		if err := p.instantiateDecider(ctx, d); err != nil {
			return 0, err
		}
	}
	ctx = p.enter(ctx)
	defer p.leave()
	drop := func(err error) error {
		mem := uint64(0)
		if m := d.mod.Memory(); m != nil {
			mem = uint64(m.Size())
		}
		d.mod.Close(ctx)
		d.mod = nil
		return fmt.Errorf("decider %s: %w", d.name, classify(err, mem, p.limits))
	}
	if d.configure != nil && d.configuredFor != pr.id {
		cfg := d.config
		if cfg == nil {
			cfg = json.RawMessage("null")
		}
		msg, err := json.Marshal(map[string]any{"containers": pr.Containers, "config": cfg})
		if err != nil {
			return 0, err
		}
		r, err := d.alloc.Call(ctx, uint64(len(msg)))
		if err != nil {
			return 0, drop(err)
		}
		ptr := uint32(r[0])
		if ptr == 0 {
			return 0, fmt.Errorf("decider %s: %w of %d bytes", d.name, ErrMemoryLimit, p.limits.MemoryBytes)
		}
		if !d.mod.Memory().Write(ptr, msg) {
			return 0, fmt.Errorf("decider %s: bad buffer: %d bytes at %d are outside its memory", d.name, len(msg), ptr)
		}
		r, err = d.configure.Call(ctx, uint64(ptr), uint64(len(msg)))
		if err != nil {
			return 0, drop(err)
		}
		if rc := int32(uint32(r[0])); rc != 0 {
			return 0, &StatusError{Status: StatusRejected, Detail: fmt.Sprintf("decider %s refused its configuration (code %d)", d.name, rc)}
		}
		d.configuredFor = pr.id
	}
	restarts := ev.RestartCount
	if restarts > 1<<31-1 {
		restarts = 1<<31 - 1
	}
	// CallWithStack on the decider's own stack: Call would allocate its parameters and results.
	d.stack[0], d.stack[1], d.stack[2] = uint64(uint32(ev.ContainerIndex)), uint64(uint32(ev.ExitCode)), uint64(restarts)
	if err := d.decide.CallWithStack(ctx, d.stack[:]); err != nil {
		return 0, drop(err)
	}
	return int32(uint32(d.stack[0])), nil
}

// Decide is the chained decision: each decider in turn (Restart / DoNotRestart / Abstain); when
// all abstain, the built-in rules (DecideExit).
func (p *Plugin) Decide(ctx context.Context, pr *Prepared, ev ExitEvent) (Decision, error) {
	if p.prepared[pr.id] == nil {
		return Decision{}, errUnknownPrepared
	}
	if ev.ContainerIndex < 0 || ev.ContainerIndex >= len(pr.Containers) {
		return Decision{}, &StatusError{Status: StatusOutOfRange, Detail: fmt.Sprintf("container index %d of %d", ev.ContainerIndex, len(pr.Containers))}
	}
	for _, d := range p.deciders {
		code, err := p.ask(ctx, d, pr, ev)
		if err != nil {
			return Decision{}, err
		}
		switch code {
		case -1:
			continue
		case 0:
			return Decision{Action: 0, DecidedBy: d.name}, nil
		case 1:
			return Decision{Action: 1, DecidedBy: d.name}, nil
		default:
			return Decision{}, fmt.Errorf("%w: decider %s answered %d (1 Restart, 0 DoNotRestart, -1 Abstain)", ErrInvalidDecision, d.name, code)
		}
	}
	a, err := p.DecideExit(ctx, pr, ev.ContainerIndex, ev.ExitCode)
	return Decision{Action: a, DecidedBy: BuiltIn}, err
}
