package aimd_test

import (
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/aimd"
)

// TestMemoryGuardExactlyAtMarks: the guard trips at MemoryHigh (at or above
// it) and resets only below MemoryLow, also when the mark times the limit
// does not round to a whole number of bytes: 0.56 x 100000 is
// 56000.00000000001 and 0.14 x 100000 is 14000.000000000002 in float64, so a
// heap of exactly 56000 bytes did not trip the guard, and one of exactly
// 14000 reset it.
func TestMemoryGuardExactlyAtMarks(t *testing.T) {
	var heap atomic.Uint64
	sig := aimd.SignalFunc(func(time.Time) (float64, error) { return 0.5, nil })
	l := newLimiter(t, aimd.Config{Signal: sig, Manual: true, MemoryLimit: 100000,
		MemoryHigh: 0.56, MemoryLow: 0.14, HeapBytes: heap.Load})
	now := time.Unix(1000, 0)
	for _, tt := range []struct {
		heap    uint64
		tripped bool
	}{
		{55999, false},
		{56000, true}, // exactly MemoryHigh: trips
		{14000, true}, // exactly MemoryLow: not below it, still tripped
		{13999, false},
	} {
		heap.Store(tt.heap)
		now = now.Add(100 * time.Millisecond)
		require.NoError(t, l.Tick(now))
		assert.Equal(t, tt.tripped, l.Stats().MemoryHigh, "heap %d of 100000", tt.heap)
	}
}
