package aimd_test

import (
	"math"
	"runtime/debug"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/aimd"
)

// TestSetConfigReappliesMemoryGuard: the guard's verdict follows the
// configuration in force. A guard tripped under one limit, then disabled or
// moved by SetConfig, stopped rejecting only at the next control step: with
// Manual set, never until the caller ticked, and Stats showed the guard tripped
// against "no guard".
func TestSetConfigReappliesMemoryGuard(t *testing.T) {
	var heap atomic.Uint64
	sig := &constLoad{}
	sig.set(0.5)
	cfg := aimd.Config{Signal: sig, Manual: true, MemoryLimit: 1000, HeapBytes: heap.Load}
	l := newLimiter(t, cfg)
	heap.Store(950)
	require.NoError(t, l.Tick(time.Unix(1, 0)))
	_, err := l.TryAcquire()
	require.ErrorIs(t, err, aimd.ErrMemory, "tripped at 950 of 1000")

	cfg.MemoryLimit = -1 // disable the guard
	require.NoError(t, l.SetConfig(cfg))
	st := l.Stats()
	assert.Zero(t, st.MemoryLimit)
	assert.False(t, st.MemoryHigh, "no guard, so not tripped")
	d, err := l.TryAcquire()
	require.NoError(t, err, "the guard is disabled")
	d(true)

	cfg.MemoryLimit = 1000 // back: 950 is above the high-water mark again
	require.NoError(t, l.SetConfig(cfg))
	_, err = l.TryAcquire()
	require.ErrorIs(t, err, aimd.ErrMemory)
	assert.Equal(t, int64(2), l.Stats().MemoryTrips)

	cfg.MemoryLimit = 2000 // 950 is below the new low-water mark (1600)
	require.NoError(t, l.SetConfig(cfg))
	d, err = l.TryAcquire()
	require.NoError(t, err, "950 of 2000 is below MemoryLow")
	d(true)
	assert.False(t, l.Stats().MemoryHigh)
}

// TestMemoryGuardFollowsMemoryLimitChanges: with MemoryLimit zero the guard
// watches the Go memory limit in force at each step. It read the limit once, in
// New: a program that set its limit after creating the Limiter (from its
// configuration, say) had no guard at all, and one that lowered it kept
// admitting work up to the old limit while the GC thrashed.
func TestMemoryGuardFollowsMemoryLimitChanges(t *testing.T) {
	old := debug.SetMemoryLimit(math.MaxInt64) // no limit yet
	defer debug.SetMemoryLimit(old)
	const limit = 1 << 40
	var heap atomic.Uint64
	heap.Store(limit / 100 * 95) // 95% of the limit to come, far below the real heap's reach
	sig := &constLoad{}
	sig.set(0.5)
	l := newLimiter(t, aimd.Config{Signal: sig, Manual: true, HeapBytes: heap.Load})
	now := time.Unix(1, 0)
	require.NoError(t, l.Tick(now))
	d, err := l.TryAcquire()
	require.NoError(t, err, "no memory limit: no guard")
	d(true)
	assert.Zero(t, l.Stats().MemoryLimit)

	debug.SetMemoryLimit(limit)
	now = now.Add(time.Second)
	require.NoError(t, l.Tick(now))
	_, err = l.TryAcquire()
	require.ErrorIs(t, err, aimd.ErrMemory, "95% of the limit set after New")
	assert.InDelta(t, float64(limit), l.Stats().MemoryLimit, 0)

	debug.SetMemoryLimit(2 * limit) // raised: 47.5% of it
	now = now.Add(time.Second)
	require.NoError(t, l.Tick(now))
	d, err = l.TryAcquire()
	require.NoError(t, err)
	d(true)
	assert.InDelta(t, float64(2*limit), l.Stats().MemoryLimit, 0)

	debug.SetMemoryLimit(math.MaxInt64) // removed
	heap.Store(2 * limit)
	now = now.Add(time.Second)
	require.NoError(t, l.Tick(now))
	d, err = l.TryAcquire()
	require.NoError(t, err)
	d(true)
	assert.Zero(t, l.Stats().MemoryLimit)
}
