package shed_test

import (
	"context"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/shed"
)

// TestCapacityBelowOneAndShrinking pins Capacity's doc: a limit below 1
// counts as 1, and one that drops below the cost in flight revokes nothing
// and admits nothing until enough is released.
func TestCapacityBelowOneAndShrinking(t *testing.T) {
	var limit atomic.Int64
	limit.Store(4)
	s := newShedder(t, shed.Config{Capacity: shed.CapacityFunc(func() int { return int(limit.Load()) })})
	var rels []func()
	for range 4 {
		rel, err := s.TryAcquire("A", 0, 1)
		require.NoError(t, err)
		rels = append(rels, rel)
	}
	for _, l := range []int64{2, 0, -5} {
		limit.Store(l)
		_, err := s.TryAcquire("A", 0, 1)
		require.ErrorIs(t, err, shed.ErrShed, "limit %d", l)
		assert.Equal(t, int64(4), s.Stats().InFlight, "limit %d: nothing is revoked", l)
		assert.Equal(t, int(max(l, 1)), s.Stats().Limit)
	}
	for _, rel := range rels[1:] {
		rel()
		_, err := s.TryAcquire("A", 0, 1)
		require.Error(t, err, "one unit still in flight fills a limit of 1")
	}
	rels[0]()
	rel, err := s.TryAcquire("A", 0, 1)
	require.NoError(t, err)
	rel()
}

// TestReleaseAfterClose: Close leaves admitted requests running, and their
// release returns their capacity.
func TestReleaseAfterClose(t *testing.T) {
	s := newShedder(t, shed.Config{Capacity: shed.Fixed(2)})
	rel, err := s.Acquire(context.Background(), "A", 0, 2)
	require.NoError(t, err)
	s.Close()
	assert.Equal(t, int64(2), s.Stats().InFlight)
	rel()
	rel()
	st := s.Stats()
	assert.Zero(t, st.InFlight)
	assert.Equal(t, int64(1), st.Admitted)
}
