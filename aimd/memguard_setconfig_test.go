package aimd_test

import (
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
