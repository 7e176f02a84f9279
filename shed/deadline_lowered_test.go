package shed_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/shed"
)

// TestLoweredQueueDeadlineBehindQueued pins SetConfig's doc: a lowered
// QueueDeadline applies to arrivals, but an arrival behind a request queued
// under the previous one gets that request's deadline, until the new
// deadline passes it (deadlines never decrease along a bucket).
func TestLoweredQueueDeadlineBehindQueued(t *testing.T) {
	s, err := shed.NewScheduler[int](shed.Config{QueueDeadline: time.Second})
	require.NoError(t, err)
	t0 := time.Unix(1_700_000_000, 0)
	_, dl, err := s.Push(t0, "a", 0, 1, 1)
	require.NoError(t, err)
	require.Equal(t, t0.Add(time.Second), dl)
	require.NoError(t, s.SetConfig(shed.Config{QueueDeadline: 50 * time.Millisecond}))

	for _, tc := range []struct {
		tenant string
		at     time.Duration
		want   time.Duration
	}{
		{"b", 10 * time.Millisecond, 60 * time.Millisecond},     // an empty bucket: the new deadline
		{"a", 10 * time.Millisecond, time.Second},               // behind a: a's deadline
		{"a", 990 * time.Millisecond, 1040 * time.Millisecond},  // the new deadline passed a's
		{"a", 1000 * time.Millisecond, 1050 * time.Millisecond}, // and now applies
	} {
		_, dl, err := s.Push(t0.Add(tc.at), tc.tenant, 0, 1, 0)
		require.NoError(t, err)
		require.Equal(t, tc.want, dl.Sub(t0), "%s at %v", tc.tenant, tc.at)
	}
}
