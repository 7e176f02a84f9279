package shed

import (
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestQueuedCostSaturates: Stats.QueuedCost, a gauge, reads MaxInt64 while
// the cost queued is beyond it, and the exact cost again once enough of it
// has left. A request costlier than MaxQueueCost is queued when its bucket is
// empty, so two tenants can each queue one of a huge cost: the sum wrapped
// negative.
func TestQueuedCostSaturates(t *testing.T) {
	s, err := NewScheduler[int](Config{})
	require.NoError(t, err)
	now := time.Unix(1_700_000_000, 0)
	var huge []Handle[int]
	for i, name := range []string{"a", "b", "c"} {
		h, _, err := s.Push(now, name, 0, math.MaxInt64, i)
		require.NoError(t, err)
		huge = append(huge, h)
	}
	_, _, err = s.Push(now, "d", 0, 5, 3)
	require.NoError(t, err)
	for _, h := range huge {
		require.Equal(t, int64(math.MaxInt64), s.Stats().QueuedCost)
		require.True(t, s.Remove(now, h, 0))
	}
	require.Equal(t, int64(5), s.Stats().QueuedCost)
}
