package shed

import (
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestAdmittedCostSaturates: the admitted cost counters saturate at MaxInt64,
// as the deficits and deadlines do, rather than wrap negative after two
// admissions of a huge cost (a request costlier than the limit runs alone,
// so such costs are admitted). Direct admissions on a lane and in a bucket,
// and admissions from the queue.
func TestAdmittedCostSaturates(t *testing.T) {
	for _, prio := range []int{0, 1, 2} { // lanes 0 and 1, and a bucket's counts
		s, err := NewScheduler[int](Config{Priorities: 3})
		require.NoError(t, err)
		now := time.Unix(1_700_000_000, 0)
		s.Admit(now, "a", prio, math.MaxInt64)
		s.Admit(now, "a", prio, math.MaxInt64)
		s.Admit(now, "a", prio, 3)
		for range 2 {
			_, _, err := s.Push(now, "a", prio, math.MaxInt64, 1)
			require.NoError(t, err)
			_, _, ok := s.Pop(now, math.MaxInt64, nil)
			require.True(t, ok)
		}
		require.Equal(t, int64(math.MaxInt64), s.Stats().AdmittedCost, "priority %d: totals", prio)
		b := s.Tenant(nil, "a")[prio]
		require.Equal(t, int64(5), b.Admitted)
		require.Equal(t, int64(math.MaxInt64), b.AdmittedCost, "priority %d: bucket", prio)
	}
}
