package aimd_test

import (
	"context"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/aimd"
)

// TestAcquireWakesWhenStepDue: a blocked Acquire slept a whole Period from
// the moment it blocked, and the lazy step ran only when it woke: blocked
// just before a step was due, it took that step, and the admission or the
// memory guard's reset it brings, up to a period late, so a loop driven by
// blocked callers stepped every two periods at worst and recovered up to
// twice as slowly as the package doc's figures (found by a review). It now
// wakes when the next step is due. Virtual time under synctest.
func TestAcquireWakesWhenStepDue(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var load atomic.Int64 // in percent
		load.Store(200)
		sig := aimd.SignalFunc(func(time.Time) (float64, error) { return float64(load.Load()) / 100, nil })
		const period = 100 * time.Millisecond
		l, err := aimd.New(aimd.Config{Signal: sig, Period: period, Min: 1, Initial: 1, Max: 10, MemoryLimit: -1})
		require.NoError(t, err)
		start := time.Now()
		done, err := l.TryAcquire() // steps now (overload: the limit stays at Min, 1)
		require.NoError(t, err)
		defer done(true)
		require.Equal(t, 1, l.Limit())
		load.Store(10) // the overload ends: the next step, due at start+period, opens the limit
		time.Sleep(period - time.Millisecond)
		d, err := l.Acquire(context.Background()) // blocked: the one unit is in flight
		require.NoError(t, err)
		defer d(true)
		assert.Equal(t, period, time.Since(start), "admitted when the step was due")
		assert.Greater(t, l.Limit(), 1)
	})
}
