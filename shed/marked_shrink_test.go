package shed

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestMarkedListShrinksAfterReclaim: the list of tenants ever marked over
// their share gives its memory back once most of them are reclaimed. It kept
// the backing array of its peak: a burst of 10,000 tenants shed once each
// held 10,000 pointers for the life of the Scheduler after every one of them
// was reclaimed.
func TestMarkedListShrinksAfterReclaim(t *testing.T) {
	const n = 10_000
	s, err := NewScheduler[int](Config{Capacity: Fixed(4), IdleTimeout: time.Millisecond})
	require.NoError(t, err)
	now := time.Unix(0, 0)
	for i := range n {
		s.Refuse(now, fmt.Sprintf("t%d", i), 0, ReasonBucketFull)
	}
	require.Len(t, s.marked, n, "every tenant shed is marked over its share")
	peak := cap(s.marked)
	now = now.Add(time.Second) // every one of them idle
	for i := 0; len(s.marked) > 0 && i < 100*n; i++ {
		s.Admit(now, "x", 0, 1)
	}
	require.Empty(t, s.marked, "every marked tenant reclaimed")
	require.LessOrEqual(t, cap(s.marked), 64, "the backing array of the peak (%d) kept", peak)
	checkMarked(t, s)
}
