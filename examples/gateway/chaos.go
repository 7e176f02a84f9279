package main

import (
	"context"
	"runtime"
	"sync/atomic"
	"time"

	"github.com/tierkit/tierkit/control"
)

// Chaos knobs make one gateway artificially hot or slow without a restart, so
// a control plane's reaction can be shown and tested on one machine
// (examples/cluster makes one host hot, then a whole region):
//
//   - chaos.burn_us: CPU microseconds burned per backend op (a spin on the
//     thread's CPU clock, so a busy machine does not change the amount); the
//     process's CPU use rises with its traffic, as on a host whose requests
//     got more expensive.
//   - chaos.delay_us: latency added to each backend call (a batch), as on a
//     host whose path to the store got slow; it costs no CPU.
//
// Both default to 0 (off). They wrap the backend's Do, so they apply to the
// batches of data commands that reach the store; cache hits of the caching
// tier skip them, and so do transactions (WATCH, the reads inside MULTI,
// EXEC), KVSCAN and the caching tier's feed, which reach the store past Do.
const (
	chaosMaxBurn  = 10 * time.Millisecond
	chaosMaxDelay = time.Second
)

// chaosBackend is a Backend that burns and sleeps as its knobs say before
// passing each call on.
type chaosBackend struct {
	Backend
	burn  atomic.Int64 // ns per op
	delay atomic.Int64 // ns per call
}

// Do burns burn per op, waits delay, then runs the call; the burn and the
// wait both end when ctx does (the batch's deadline, request_timeout), and
// then the call is not made.
func (c *chaosBackend) Do(ctx context.Context, shard int, ops []op, out []opResult) error {
	if b := time.Duration(c.burn.Load()); b > 0 {
		if err := spin(ctx, b*time.Duration(len(ops))); err != nil {
			return err
		}
	}
	if d := time.Duration(c.delay.Load()); d > 0 {
		t := time.NewTimer(d)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			return ctx.Err()
		}
	}
	return c.Backend.Do(ctx, shard, ops, out)
}

// spin keeps the goroutine running until its thread has used d of CPU, so
// the heat is the same whatever else the machine runs; where the thread's CPU
// clock cannot be read (not Linux) it spins for d of wall time. A thread
// starved of CPU stops after 10*d of wall time. It returns ctx's error when
// ctx ends first: a batch of many ops burns seconds, and a burn past the
// batch's deadline would hold the shard's in-flight slot for a call nobody
// waits for.
func spin(ctx context.Context, d time.Duration) error {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	deadline := time.Now().Add(10 * d)
	start, ok := threadCPU()
	if !ok {
		deadline = time.Now().Add(d)
	}
	done := ctx.Done()
	for time.Now().Before(deadline) {
		select {
		case <-done:
			return ctx.Err()
		default:
		}
		if now, ok := threadCPU(); ok && now-start >= d {
			return nil
		}
	}
	return nil
}

// registerChaos wraps the backend with the chaos knobs and registers them. It
// runs before the gateway serves (registerKnobs is called by start), so the
// backend field is not read concurrently while it is replaced.
func (g *Gateway) registerChaos(reg *control.Registry) []error {
	c := &chaosBackend{Backend: g.backend}
	g.backend = c
	return []error{
		reg.RegisterInt(control.IntKnob{Name: "chaos.burn_us", Doc: "CPU microseconds burned per backend op (artificial heat; 0: off)",
			Min: 0, Max: chaosMaxBurn.Microseconds(), Value: 0,
			Apply: func(v int64) error { c.burn.Store(int64(time.Duration(v) * time.Microsecond)); return nil }}),
		reg.RegisterInt(control.IntKnob{Name: "chaos.delay_us", Doc: "microseconds added to each backend call (artificial latency; 0: off)",
			Min: 0, Max: chaosMaxDelay.Microseconds(), Value: 0,
			Apply: func(v int64) error { c.delay.Store(int64(time.Duration(v) * time.Microsecond)); return nil }}),
	}
}
