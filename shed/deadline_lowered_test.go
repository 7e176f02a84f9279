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

// TestLoweredQueueDeadlineBehindQueued: a lowered QueueDeadline applies to the
// requests already queued, and so to the arrivals behind them. Queued requests
// used to keep their deadlines, and an arrival behind one got its deadline:
// after a mistaken hour was lowered to 50 ms, the bucket waited the hour.
func TestLoweredQueueDeadlineBehindQueued(t *testing.T) {
	s, err := shed.NewScheduler[string](shed.Config{QueueDeadline: time.Second})
	require.NoError(t, err)
	t0 := time.Unix(1_700_000_000, 0)
	_, dl, err := s.Push(t0, "a", 0, 1, "a0")
	require.NoError(t, err)
	require.Equal(t, t0.Add(time.Second), dl)
	_, _, err = s.Push(t0.Add(30*time.Millisecond), "a", 0, 1, "a30")
	require.NoError(t, err)
	require.NoError(t, s.SetConfig(shed.Config{QueueDeadline: 50 * time.Millisecond}))

	for _, tc := range []struct {
		tenant string
		at     time.Duration
		want   time.Duration
	}{
		{"b", 10 * time.Millisecond, 60 * time.Millisecond}, // an empty bucket: the new deadline
		{"a", 10 * time.Millisecond, 80 * time.Millisecond}, // behind a30, cut to 80 ms
		{"a", 40 * time.Millisecond, 90 * time.Millisecond}, // the new deadline
	} {
		_, dl, err := s.Push(t0.Add(tc.at), tc.tenant, 0, 1, tc.tenant+tc.at.String())
		require.NoError(t, err)
		require.Equal(t, tc.want, dl.Sub(t0), "%s at %v", tc.tenant, tc.at)
	}

	var got []string
	expire := func(at time.Duration) []string {
		got = got[:0]
		s.Expire(t0.Add(at), func(v string) { got = append(got, v) })
		return got
	}
	assert.Equal(t, []string{"a0"}, expire(51*time.Millisecond), "a0 past its cut deadline")
	assert.Equal(t, []string{"b10ms"}, expire(61*time.Millisecond))
	assert.Equal(t, []string{"a30", "a10ms"}, expire(81*time.Millisecond))

	// Raising it extends no queued request's deadline.
	require.NoError(t, s.SetConfig(shed.Config{QueueDeadline: time.Hour}))
	assert.Equal(t, []string{"a40ms"}, expire(91*time.Millisecond))
	assert.Zero(t, s.Queued())
	assert.Equal(t, int64(5), s.Stats().ShedQueueDeadline)
}

// TestLoweredStandingDeadlineQueued: a lowered StandingDeadline cuts the
// deadlines of the requests that joined a standing queue, not below the
// deadline of the one ahead.
func TestLoweredStandingDeadlineQueued(t *testing.T) {
	cfg := shed.Config{QueueDeadline: time.Second, StandingDeadline: 500 * time.Millisecond}
	s, err := shed.NewScheduler[string](cfg)
	require.NoError(t, err)
	t0 := time.Unix(1_700_000_000, 0)
	_, _, err = s.Push(t0, "a", 0, 1, "a0")
	require.NoError(t, err)
	s.Refuse(t0.Add(time.Second), "a", 0, shed.ReasonBucketFull) // a is over its share
	// Its bucket has held a0 for over QueueDeadline: a standing queue.
	_, dl, err := s.Push(t0.Add(1100*time.Millisecond), "a", 0, 1, "a1100")
	require.NoError(t, err)
	require.Equal(t, 1600*time.Millisecond, dl.Sub(t0))

	cfg.StandingDeadline = 50 * time.Millisecond
	require.NoError(t, s.SetConfig(cfg))
	var got []string
	s.Expire(t0.Add(1149*time.Millisecond), func(v string) { got = append(got, v) })
	assert.Equal(t, []string{"a0"}, got, "a0 keeps its QueueDeadline")
	s.Expire(t0.Add(1151*time.Millisecond), func(v string) { got = append(got, v) })
	assert.Equal(t, []string{"a0", "a1100"}, got, "a1100 cut to 1150 ms")
}

// TestShedderLoweredQueueDeadline: on a Shedder, a lowered QueueDeadline sheds
// at once the waiters queued for longer than it, and re-arms the deadline
// sweep so that the others are shed at their new deadlines, not their old.
func TestShedderLoweredQueueDeadline(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		cfg := shed.Config{Capacity: shed.Fixed(1), QueueDeadline: time.Hour}
		s := newShedder(t, cfg)
		hold, err := s.Acquire(context.Background(), "A", 0, 1)
		require.NoError(t, err)
		defer hold()
		done := make(chan error, 2)
		acquire := func(tenant string) {
			go func() {
				rel, err := s.Acquire(context.Background(), tenant, 0, 1)
				if err == nil {
					rel()
				}
				done <- err
			}()
			synctest.Wait()
		}
		acquire("B")
		time.Sleep(time.Second)
		acquire("C")
		time.Sleep(50 * time.Millisecond)
		require.Equal(t, 2, s.Stats().Queued)

		start := time.Now()
		cfg.QueueDeadline = 100 * time.Millisecond
		require.NoError(t, s.SetConfig(cfg))
		synctest.Wait() // no time passes: B, queued for 1.05 s, is shed by SetConfig
		select {
		case err := <-done:
			require.ErrorIs(t, err, shed.ErrShed)
		default:
			t.Fatal("B still queued past the lowered deadline")
		}
		require.Equal(t, 1, s.Stats().Queued)

		err = <-done // C, at its new deadline: 100 ms after it queued
		var se *shed.ShedError
		require.ErrorAs(t, err, &se)
		assert.Equal(t, shed.ReasonQueueDeadline, se.Reason)
		assert.LessOrEqual(t, time.Since(start), 50*time.Millisecond)
		assert.Equal(t, int64(2), s.Stats().ShedQueueDeadline)
	})
}
