package aimd_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/aimd"
)

// TestMemoryGuardAppliesFromNew: a Limiter created while the Go memory is
// already above the guard's high-water mark rejects work from the start.
// With Manual set the guard was first consulted at the first Tick, so such
// a Limiter admitted every request until the caller ticked, whereas without
// Manual the first admission stepped and failed with ErrMemory.
func TestMemoryGuardAppliesFromNew(t *testing.T) {
	for _, manual := range []bool{true, false} {
		sig := &constLoad{}
		sig.set(0.5)
		l := newLimiter(t, aimd.Config{Signal: sig, Manual: manual, MemoryLimit: 1000,
			HeapBytes: func() uint64 { return 950 }})
		st := l.Stats()
		assert.True(t, st.MemoryHigh, "manual %v: 950 of 1000 trips the guard in New", manual)
		assert.Equal(t, 950.0, st.HeapBytes, "manual %v", manual)
		_, err := l.TryAcquire()
		require.ErrorIs(t, err, aimd.ErrMemory, "manual %v", manual)
	}
}
