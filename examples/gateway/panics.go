package main

import (
	"errors"
	"log/slog"
	"runtime/debug"
	"sync/atomic"

	"github.com/tierkit/tierkit/batcher"
	"github.com/tierkit/tierkit/coalesce"
)

// Panics off a connection's goroutine. A panic while serving a connection
// ends that connection (Server.endConn, connection_panics). The funcs the
// gateway hands to the batcher (a batch's backend call), the coalescing
// group (a shared fetch) and the caching tier (a fill) run for several
// commands, of several connections, on whichever goroutine runs them; the
// library would recover their panic and hand each waiter a *PanicError,
// whose text holds the whole goroutine stack. They recover it themselves
// (recoverTo): counted once (INFO's request_panics), logged once with its
// stack, and each of their commands answers errInternal, with no stack, as
// any failed backend call fails its commands; the connections go on.

// errInternal is the reply of a command whose batch, fetch or fill
// panicked.
var errInternal = errors.New("ERR internal error (a bug; the gateway logged it)")

// recoverTo, deferred by a func the gateway hands to a library, recovers
// its panic: n counts it, log logs it with its stack, and *err becomes
// errInternal.
func recoverTo(err *error, n *atomic.Uint64, log *slog.Logger, where string) {
	v := recover()
	if v == nil {
		return
	}
	n.Add(1)
	log.Error("panic on the request path; its commands fail", "in", where, "panic", v, "stack", string(debug.Stack()))
	*err = errInternal
}

// isPanic reports whether err is a panic a library recovered (one of the
// gateway's funcs that did not recover its own, or the library's own
// code): errReply answers it as errInternal, not with its stack.
func isPanic(err error) bool {
	var bp *batcher.PanicError
	var cp *coalesce.PanicError
	return errors.As(err, &bp) || errors.As(err, &cp)
}
