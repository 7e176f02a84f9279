package aimd_test

import (
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/aimd"
)

// TestSignalErrorKeepsMemoryGuard: a step whose Signal fails holds the limit
// (ErrCgroup's doc: "a Limiter holds its limit at each step that gets it"),
// but it still samples the memory and trips or resets the guard, as Tick's
// doc says of every step. A CgroupCPU on a machine without readable cgroup
// files fails at every step: its Limiter must still refuse work with
// ErrMemory as the heap nears its limit, and admit again once it falls.
func TestSignalErrorKeepsMemoryGuard(t *testing.T) {
	var heap atomic.Uint64
	sig := &aimd.CgroupCPU{Root: t.TempDir()} // no cgroup files: every Sample fails
	l := newLimiter(t, aimd.Config{Signal: sig, Manual: true, Initial: 10, MemoryLimit: 1000,
		HeapBytes: heap.Load})
	now := time.Unix(1000, 0)
	for i, tt := range []struct {
		heap    uint64
		wantErr error
	}{
		{500, nil},
		{950, aimd.ErrMemory}, // above MemoryHigh 0.9: trips
		{850, aimd.ErrMemory}, // not below MemoryLow 0.8: still tripped
		{700, nil},            // below it: resets
	} {
		heap.Store(tt.heap)
		now = now.Add(100 * time.Millisecond)
		require.ErrorIs(t, l.Tick(now), aimd.ErrCgroup, "step %d", i)
		done, err := l.TryAcquire()
		if tt.wantErr != nil {
			require.ErrorIs(t, err, tt.wantErr, "heap %d of 1000", tt.heap)
			continue
		}
		require.NoError(t, err, "heap %d of 1000", tt.heap)
		done(true)
	}
	st := l.Stats()
	assert.Equal(t, 10, st.Limit, "a failed signal holds the limit")
	assert.Equal(t, int64(4), st.SignalErrors)
	assert.Equal(t, int64(1), st.MemoryTrips)
	assert.InDelta(t, 700, st.HeapBytes, 0)
}
