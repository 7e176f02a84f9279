package main

import (
	"context"
	"runtime"
	"sync"
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
// passing each call on. A knob change reaches the calls already burning or
// waiting: turned off, the chaos of an experiment ends at once, not up to
// request_timeout later.
type chaosBackend struct {
	Backend
	burn  atomic.Int64 // ns per op
	delay atomic.Int64 // ns per call

	mu      sync.Mutex
	changed chan struct{} // closed when delay changes (nil: no call waits)
}

// Do burns burn per op, waits delay, then runs the call; the burn and the
// wait both end when ctx does (the batch's deadline, request_timeout), and
// then the call is not made.
func (c *chaosBackend) Do(ctx context.Context, shard int, ops []op, out []opResult) error {
	if c.burn.Load() > 0 {
		n := time.Duration(len(ops))
		if err := spin(ctx, func() time.Duration { return time.Duration(c.burn.Load()) * n }); err != nil {
			return err
		}
	}
	if c.delay.Load() > 0 {
		if err := c.wait(ctx); err != nil {
			return err
		}
	}
	return c.Backend.Do(ctx, shard, ops, out)
}

// wait waits until delay has passed since it began, reading delay again
// whenever setDelay changes it, or until ctx ends.
func (c *chaosBackend) wait(ctx context.Context) error {
	start := time.Now()
	for {
		changed := c.delayChanged() // before the read: a change after it wakes us
		left := time.Duration(c.delay.Load()) - time.Since(start)
		if left <= 0 {
			return nil
		}
		t := time.NewTimer(left)
		select {
		case <-t.C:
			return nil
		case <-changed:
			t.Stop()
		case <-ctx.Done():
			t.Stop()
			return ctx.Err()
		}
	}
}

func (c *chaosBackend) delayChanged() <-chan struct{} {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.changed == nil {
		c.changed = make(chan struct{})
	}
	return c.changed
}

// setDelay sets delay and wakes the calls waiting, to wait the new one.
func (c *chaosBackend) setDelay(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.delay.Store(int64(d))
	if c.changed != nil {
		close(c.changed)
		c.changed = nil
	}
}

// spin keeps the goroutine running until its thread has used d() of CPU, so
// the heat is the same whatever else the machine runs; where the thread's CPU
// clock cannot be read (not Linux) it spins for d() of wall time. A thread
// starved of CPU stops after 10*d() of wall time. d is read on every turn, so
// a burn lowered or turned off while it spins ends at its new amount. It
// returns ctx's error when ctx ends first: a batch of many ops burns seconds,
// and a burn past the batch's deadline would hold the shard's in-flight slot
// for a call nobody waits for.
func spin(ctx context.Context, d func() time.Duration) error {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	began := time.Now()
	start, cpuClock := threadCPU()
	done := ctx.Done()
	for {
		select {
		case <-done:
			return ctx.Err()
		default:
		}
		want := d()
		if cpuClock {
			if now, ok := threadCPU(); ok && now-start >= want {
				return nil
			}
			if time.Since(began) >= 10*want {
				return nil
			}
		} else if time.Since(began) >= want {
			return nil
		}
	}
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
			Apply: func(v int64) error { c.setDelay(time.Duration(v) * time.Microsecond); return nil }}),
	}
}
