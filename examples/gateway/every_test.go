package main

import (
	"context"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/tierkit/tierkit/cache"
)

// TestEveryFollowsPeriod: the checkpoint ticker reads its period again after
// each call, so lowering the staleness bound at runtime (the
// cache.max_staleness knob) speeds checkpoints up from the next tick on. With
// the cadence fixed at start, a bound lowered from 1 s to 20 ms kept
// checkpoints 250 ms apart, and most hits fell past the bound.
func TestEveryFollowsPeriod(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var period atomic.Int64
		period.Store(int64(250 * time.Millisecond))
		var calls atomic.Int64
		ctx, cancel := context.WithCancel(t.Context())
		done := make(chan struct{})
		go func() {
			defer close(done)
			every(ctx, func() time.Duration { return time.Duration(period.Load()) }, nil, func() { calls.Add(1) })
		}()
		time.Sleep(time.Second) // virtual time: 4 ticks
		synctest.Wait()
		assert.Equal(t, int64(4), calls.Load())
		period.Store(int64(5 * time.Millisecond)) // read after the next tick
		time.Sleep(250 * time.Millisecond)        // that tick
		synctest.Wait()
		assert.Equal(t, int64(5), calls.Load())
		time.Sleep(100 * time.Millisecond) // 20 ticks of 5 ms
		synctest.Wait()
		assert.Equal(t, int64(25), calls.Load())
		cancel()
		<-done
	})
}

// TestMemkvCheckpointPeriodFollowsKnob: the memkv checkpoint period is a
// quarter of the bound in force, not of the bound at start.
func TestMemkvCheckpointPeriodFollowsKnob(t *testing.T) {
	ct, err := newCacheTier(1, 64, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	assert.Equal(t, 250*time.Millisecond, ct.memkvCheckpointPeriod())
	defer ct.stop()
	assert.NoError(t, ct.setConfig(func(c *cache.Config[string]) { c.MaxStaleness = 20 * time.Millisecond }))
	assert.Equal(t, 5*time.Millisecond, ct.memkvCheckpointPeriod())
}

// TestEveryReadsLoweredBoundAtOnce: a staleness bound lowered at runtime
// (from 1 h to 1 s) changes the checkpoint cadence at once, with a
// checkpoint then, not at the next tick of the old cadence: that tick was up
// to 15 minutes away, and until it every hit fell past the new bound. A
// raised bound takes effect without an extra checkpoint; a change of the
// capacity alone changes nothing.
func TestEveryReadsLoweredBoundAtOnce(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ct, err := newCacheTier(1, 64, time.Hour)
		if err != nil {
			t.Fatal(err)
		}
		defer ct.stop()
		var calls atomic.Int64
		ctx, cancel := context.WithCancel(t.Context())
		done := make(chan struct{})
		go func() {
			defer close(done)
			every(ctx, ct.memkvCheckpointPeriod, ct.boundChanged, func() { calls.Add(1) })
		}()
		time.Sleep(time.Minute)
		synctest.Wait()
		assert.Equal(t, int64(0), calls.Load(), "a checkpoint every 15 minutes")
		assert.NoError(t, ct.setConfig(func(c *cache.Config[string]) { c.Capacity = 128 }))
		synctest.Wait()
		assert.Equal(t, int64(0), calls.Load(), "the bound did not change")
		assert.NoError(t, ct.setConfig(func(c *cache.Config[string]) { c.MaxStaleness = time.Second }))
		synctest.Wait()
		assert.Equal(t, int64(1), calls.Load(), "a checkpoint as soon as the bound is lowered")
		time.Sleep(time.Second) // 4 ticks of 250 ms
		synctest.Wait()
		assert.Equal(t, int64(5), calls.Load(), "then one every 250 ms")
		assert.NoError(t, ct.setConfig(func(c *cache.Config[string]) { c.MaxStaleness = 2 * time.Second }))
		synctest.Wait()
		assert.Equal(t, int64(5), calls.Load(), "no extra checkpoint when the bound is raised")
		time.Sleep(time.Second) // 2 ticks of 500 ms
		synctest.Wait()
		assert.Equal(t, int64(7), calls.Load(), "one every 500 ms")
		cancel()
		<-done
	})
}
