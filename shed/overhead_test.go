package shed_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/shed"
)

// TestCostlyHeadOverShareHoldsBackOnlyItsList pins the limit of the
// Scheduler doc's NOTE on a head that does not fit: it holds back the tenants
// of its own list and of the old list, but a tenant over its share waits on
// the old list, and the fresh list is served first, so tenants under their
// share that queue behind it are served while it waits. Its request then runs
// only once the fresh list is empty and enough capacity is free (a Shedder
// whose capacity they keep busy sheds it at its deadline).
func TestCostlyHeadOverShareHoldsBackOnlyItsList(t *testing.T) {
	s := newSched(t, shed.Config{Quantum: 1, MaxQueue: 1, QueueDeadline: time.Hour})
	_, _, err := s.Push(t0, "A", 0, 100, req{tenant: "A", cost: 100})
	require.NoError(t, err)
	_, _, err = s.Push(t0, "A", 0, 1, req{tenant: "A", cost: 1})
	require.ErrorIs(t, err, shed.ErrShed, "bucket full: A is over its share")
	_, _, ok := s.Pop(t0, 5, nil)
	require.False(t, ok, "A's turn comes on the old list (its deficit covers 100), and its request does not fit")
	for i := range 3 {
		_, _, err = s.Push(t0, "C", 0, 1, req{tenant: "C", cost: 1, seq: i})
		require.NoError(t, err)
		v, _, ok := s.Pop(t0, 5, nil)
		require.True(t, ok, "C, under its share, is served although A's head waits")
		assert.Equal(t, "C", v.tenant)
	}
	_, _, ok = s.Pop(t0, 5, nil)
	require.False(t, ok, "with the fresh list empty, A's head holds the rest back again")
	served := drain(s, t0, 1)
	require.Len(t, served, 1)
	assert.Equal(t, "A", served[0].tenant)
}
