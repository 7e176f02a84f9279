package shed

import (
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestNeverShedUnderShareBeforeEpoch: a tenant never shed is under its share
// whatever the caller's clock. A request stamped before the first time the
// Scheduler saw (a caller's clock that stepped back) is at a negative time,
// and a new tenant's over-share end was 0, so it counted as over its share:
// served after tenants that arrived later, and its first shed not counted
// in OverShareByShed (found by a review).
func TestNeverShedUnderShareBeforeEpoch(t *testing.T) {
	s, err := NewScheduler[string](Config{})
	require.NoError(t, err)
	at := time.Unix(1000, 0)
	s.Expire(at, nil) // the Scheduler's first time: its epoch
	back := at.Add(-time.Millisecond)
	_, _, err = s.Push(back, "b", 0, 1, "b") // the clock stepped back
	require.NoError(t, err)
	_, _, err = s.Push(at, "c", 0, 1, "c")
	require.NoError(t, err)
	v, _, ok := s.Pop(at, math.MaxInt64, nil)
	require.True(t, ok)
	require.Equal(t, "b", v, "b arrived first, and neither tenant was ever shed")
	s.Refuse(back, "d", 0, ReasonBucketFull)
	require.Equal(t, int64(1), s.Stats().OverShareByShed, "a tenant's first shed")
}
