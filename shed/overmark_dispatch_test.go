package shed_test

import (
	"context"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/shed"
)

// TestShedOnPushUnblocksFreshList: a costly head of a tenant under its share
// that does not fit holds back every queued request; once that tenant is
// marked over its share it holds back only the old list (see Scheduler's
// "Drain order"). When the mark comes from a shed of one of its arrivals
// (bucket full), the Shedder ran no dispatch, so a cheap request of another
// tenant, which fits, kept waiting until some later release or arrival, or
// until its deadline shed it.
func TestShedOnPushUnblocksFreshList(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newShedder(t, shed.Config{Capacity: shed.Fixed(10), Quantum: 10, MaxQueue: 1, QueueDeadline: 100 * time.Millisecond})
		relX, err := s.TryAcquire("X", 0, 5)
		require.NoError(t, err)
		type result struct {
			rel  func()
			err  error
			wait time.Duration
		}
		acquire := func(tenant string, cost int64) chan result {
			ch := make(chan result, 1)
			go func() {
				t0 := time.Now()
				rel, err := s.Acquire(context.Background(), tenant, 0, cost)
				ch <- result{rel, err, time.Since(t0)}
			}()
			synctest.Wait()
			return ch
		}
		a := acquire("A", 10) // its turn, but 10 does not fit in the 5 free
		c := acquire("C", 1)  // fits, held back behind A's head
		require.Equal(t, 2, s.Stats().Queued)

		// A floods: its next request finds its bucket full and is shed,
		// which marks A over its share.
		_, err = s.Acquire(context.Background(), "A", 0, 1)
		require.ErrorIs(t, err, shed.ErrShed)
		synctest.Wait()

		select {
		case r := <-c:
			require.NoError(t, r.err)
			assert.Zero(t, r.wait, "C is admitted as soon as A is over its share")
			r.rel()
		default:
			time.Sleep(time.Second)
			r := <-c
			t.Fatalf("C still waited after A was marked over its share: %v after %v", r.err, r.wait)
		}
		relX()
		r := <-a
		require.NoError(t, r.err)
		r.rel()
	})
}
