package aimd_test

import (
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/aimd"
)

// TestClosedLimiterStopsStepping: a closed Limiter refuses every admission
// with ErrClosed, but each TryAcquire still took the lazy control step when
// one was due: it read the Signal (a file read for the CPU signals, or a
// user's Signal whose resources the caller freed with the Limiter) and moved
// the limit of a Limiter no one can use, once a period for as long as
// callers kept trying. After Close no lazy step runs.
func TestClosedLimiterStopsStepping(t *testing.T) {
	var samples atomic.Int64
	sig := aimd.SignalFunc(func(time.Time) (float64, error) {
		samples.Add(1)
		return 0.1, nil // far below the target: every step raises the limit
	})
	l := newLimiter(t, aimd.Config{Signal: sig, Period: 100 * time.Millisecond, MemoryLimit: -1})
	t0 := time.Now()
	done, err := l.TryAcquireAt(t0)
	require.NoError(t, err)
	done(true)
	require.Equal(t, int64(1), samples.Load(), "the first admission takes the first step")

	l.Close()
	before := l.Stats()
	for i := 1; i <= 10; i++ {
		_, err := l.TryAcquireAt(t0.Add(time.Duration(i) * time.Second))
		require.ErrorIs(t, err, aimd.ErrClosed)
	}
	after := l.Stats()
	assert.Equal(t, int64(1), samples.Load(), "a closed Limiter read its Signal")
	assert.Equal(t, before.Steps, after.Steps, "a closed Limiter took control steps")
	assert.Equal(t, before.Limit, after.Limit, "a closed Limiter moved its limit")
}
