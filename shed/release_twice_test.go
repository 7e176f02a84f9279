package shed_test

import (
	"context"
	"testing"
	"testing/synctest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/shed"
)

// TestReleaseTwiceHandsOffOnce pins Acquire's doc: a release called again
// before any later admission is a no-op, also when the first call handed the
// capacity to a queued request. That hand-off recycled the released ticket
// for the waiter, so the second call released the waiter's capacity: with a
// limit of 1, two requests then ran at once.
func TestReleaseTwiceHandsOffOnce(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newShedder(t, shed.Config{Capacity: shed.Fixed(1)})
		rel, err := s.Acquire(context.Background(), "A", 0, 1)
		require.NoError(t, err)
		got := make(chan func(), 1)
		go func() {
			r, err := s.Acquire(context.Background(), "B", 0, 1)
			if err != nil {
				r = nil
			}
			got <- r
		}()
		synctest.Wait()
		require.Equal(t, 1, s.Stats().Queued)
		rel()
		rel()
		relB := <-got
		require.NotNil(t, relB, "B was admitted")
		assert.Equal(t, int64(1), s.Stats().InFlight, "B still holds the capacity")
		_, err = s.TryAcquire("C", 0, 1)
		require.ErrorIs(t, err, shed.ErrShed, "the limit of 1 is taken by B")
		relB()
		relB()
		st := s.Stats()
		assert.Zero(t, st.InFlight)
		assert.Equal(t, int64(2), st.Admitted)
		// Without a queue, too: the second call releases nothing.
		relC, err := s.TryAcquire("C", 0, 1)
		require.NoError(t, err)
		relC()
		relC()
		assert.Zero(t, s.Stats().InFlight)
	})
}
