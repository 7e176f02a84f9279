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
			every(ctx, func() time.Duration { return time.Duration(period.Load()) }, func() { calls.Add(1) })
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
