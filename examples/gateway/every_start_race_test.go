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

// TestEveryMissesNoChangeAtStart: a staleness bound lowered just after the
// loop read its first period, and before it took the channel that announces
// changes, is seen at once (a checkpoint then, the new cadence after), not
// at the first tick of the old cadence, 15 minutes away for a 1 h bound.
func TestEveryMissesNoChangeAtStart(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ct, err := newCacheTier(1, 64, time.Hour)
		if err != nil {
			t.Fatal(err)
		}
		defer ct.stop()
		var calls atomic.Int64
		var first atomic.Bool
		period := func() time.Duration {
			p := ct.memkvCheckpointPeriod()
			if first.CompareAndSwap(false, true) { // a knob change lands right after the first read
				assert.NoError(t, ct.setConfig(func(c *cache.Config[string]) { c.MaxStaleness = time.Second }))
			}
			return p
		}
		ctx, cancel := context.WithCancel(t.Context())
		done := make(chan struct{})
		go func() {
			defer close(done)
			every(ctx, period, ct.boundChanged, func() { calls.Add(1) })
		}()
		synctest.Wait()
		assert.Equal(t, int64(1), calls.Load(), "a checkpoint as soon as the bound is lowered")
		time.Sleep(time.Second) // 4 ticks of 250 ms
		synctest.Wait()
		assert.Equal(t, int64(5), calls.Load(), "then one every 250 ms")
		cancel()
		<-done
	})
}
