package rkhost

// The per-call deadline without a per-call timer.
//
// wazero stops a running guest only through the context of the call (WithCloseOnContextDone):
// the guest's loops check whether the module was closed, and wazero closes it when that context
// is done. A context.WithTimeout per call would cost a timer, a context and three allocations,
// more than the prepared call itself. Instead each Plugin has one long-lived cancellable context
// that all its guest calls run under, and one lazily armed timer: a call records its start, the
// timer (armed once, not per call) fires at most Limits.Timeout later, and cancels the context
// only if the very call it measured is still running past its deadline (a compare-and-swap on
// the call's sequence number, so a late tick never hits the next call). A cancelled context is
// replaced before the next call.

import (
	"context"
	"sync/atomic"
	"time"
)

const (
	callRunning = 1 // state bit: a call is in flight
	callKilled  = 2 // state bit: the watchdog cancelled this call
)

type watchdog struct {
	timeout time.Duration
	base    time.Time // monotonic origin of start
	timer   *time.Timer
	// state is seq<<2 | flags for the current (or last) call.
	state atomic.Uint64
	start atomic.Int64 // nanoseconds since base at which the current call began
	armed atomic.Bool
	// cancel cancels ctx. The host goroutine publishes it before the state of a call; the timer
	// goroutine loads it after that state and before its compare-and-swap, so a successful swap
	// proves it cancels the context of the call it measured (that call had not ended, so no
	// later call had replaced it).
	cancel atomic.Pointer[context.CancelFunc]
	// The fields below belong to the host goroutine.
	ctx   context.Context
	renew bool // the last call was killed: ctx is or will be cancelled
	seq   uint64
	depth int
	// stop detaches the caller's context from ctx (nil when the caller's context cannot end).
	stop func() bool
}

func newWatchdog(timeout time.Duration) *watchdog {
	w := &watchdog{timeout: timeout, base: time.Now()}
	w.renewContext()
	w.timer = time.AfterFunc(time.Hour, w.tick)
	w.timer.Stop()
	return w
}

// enter begins a guarded call (calls nest: only the outermost one is timed) and returns the
// context the guest calls must run under.
func (w *watchdog) enter(caller context.Context) context.Context {
	w.depth++
	if w.depth > 1 {
		return w.ctx
	}
	if w.renew || w.ctx.Err() != nil {
		// Cancelled by the watchdog or the caller: the instance it stopped was discarded, and a
		// live one must not be stopped by a stale cancellation.
		w.renewContext()
	}
	if caller.Done() != nil {
		// The caller's own deadline or cancellation still applies (this costs an allocation, but
		// only for callers that pass a context that can end).
		w.stop = context.AfterFunc(caller, *w.cancel.Load())
	}
	w.seq++
	w.start.Store(int64(time.Since(w.base)))
	w.state.Store(w.seq<<2 | callRunning)
	if !w.armed.Load() {
		w.armed.Store(true)
		w.timer.Reset(w.timeout)
	}
	return w.ctx
}

// leave ends the call begun by the matching enter.
func (w *watchdog) leave() {
	w.depth--
	if w.depth > 0 {
		return
	}
	if !w.state.CompareAndSwap(w.seq<<2|callRunning, w.seq<<2) {
		w.renew = true
	}
	if w.stop != nil {
		w.stop()
		w.stop = nil
	}
}

// tick runs on the timer's goroutine.
func (w *watchdog) tick() {
	w.armed.Store(false)
	s := w.state.Load()
	if s&callRunning == 0 {
		return // idle: the next call arms the timer again
	}
	cancel := w.cancel.Load()
	elapsed := time.Since(w.base) - time.Duration(w.start.Load())
	if elapsed >= w.timeout {
		if w.state.CompareAndSwap(s, s&^callRunning|callKilled) {
			(*cancel)()
			return
		}
		// The call ended (or another began) meanwhile: watch the new state a full period on.
		elapsed = 0
	}
	w.armed.Store(true)
	w.timer.Reset(w.timeout - elapsed)
}

func (w *watchdog) renewContext() {
	ctx, cancel := context.WithCancel(context.Background())
	w.ctx, w.renew = ctx, false
	w.cancel.Store(&cancel)
}

func (w *watchdog) close() { w.timer.Stop() }
