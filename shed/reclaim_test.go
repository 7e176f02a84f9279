package shed

import (
	"context"
	"errors"
	"math"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"
)

// A tenant whose queue emptied, however it emptied, is reclaimed once idle
// for IdleTimeout while the traffic stays on the fast path. Before, a tenant
// whose last request expired, was cancelled or was the last one popped stayed
// on its drain list until something queued again, and a listed tenant is
// never reclaimed (found by a review).
func TestEmptiedTenantReclaimed(t *testing.T) {
	for _, tc := range []struct {
		name  string
		leave func(t *testing.T, s *Shedder, release func()) // the victim's request leaves the queue, and holder's capacity is released
	}{
		{"expired", func(t *testing.T, s *Shedder, release func()) {
			_, err := s.Acquire(context.Background(), "victim", 0, 1)
			require.ErrorIs(t, err, ErrShed)
			var se *ShedError
			require.True(t, errors.As(err, &se))
			require.Equal(t, ReasonQueueDeadline, se.Reason)
			release()
		}},
		{"cancelled", func(t *testing.T, s *Shedder, release func()) {
			ctx, cancel := context.WithCancel(context.Background())
			done := make(chan error, 1)
			go func() {
				_, err := s.Acquire(ctx, "victim", 0, 1)
				done <- err
			}()
			synctest.Wait() // queued
			require.Equal(t, 1, s.Stats().Queued)
			cancel()
			require.ErrorIs(t, <-done, context.Canceled)
			release()
		}},
		{"served last", func(t *testing.T, s *Shedder, release func()) {
			done := make(chan func(), 1)
			go func() {
				rel, err := s.Acquire(context.Background(), "victim", 0, 1)
				if err != nil {
					panic(err)
				}
				done <- rel
			}()
			synctest.Wait()
			require.Equal(t, 1, s.Stats().Queued)
			release() // pops the victim, the last request queued
			(<-done)()
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				s, err := New(Config{Capacity: Fixed(1), QueueDeadline: 5 * time.Millisecond, IdleTimeout: 10 * time.Millisecond})
				require.NoError(t, err)
				defer s.Close()
				release, err := s.TryAcquire("holder", 0, 1)
				require.NoError(t, err)
				tc.leave(t, s, release)
				st := s.Stats()
				require.Zero(t, st.Queued)
				require.Zero(t, st.InFlight)
				time.Sleep(time.Second) // virtual time, far past IdleTimeout
				for range 5000 {        // fast-path traffic of another tenant: its admissions sweep idle tenants
					rel, err := s.TryAcquire("holder", 0, 1)
					require.NoError(t, err)
					rel()
				}
				require.Nil(t, s.Tenant("victim"), "the victim's state, idle for 1 s with nothing queued, is still kept: %+v", s.Stats())
			})
		})
	}
}

// Admit counts a cost below 1 as 1, as Push and Acquire do: before, a tenant's
// 8-bit lane counter wrapped it, and its buckets disagreed with the totals.
func TestAdmitCostBelowOne(t *testing.T) {
	for _, tc := range []struct {
		cost, want int64
	}{{-1, 1}, {0, 1}, {math.MinInt64, 1}, {1, 1}, {7, 7}} {
		s, err := NewScheduler[int](Config{})
		require.NoError(t, err)
		s.Admit(time.Unix(1_700_000_000, 0), "a", 0, tc.cost)
		var sum int64
		for _, b := range s.Buckets(nil) {
			sum += b.AdmittedCost
		}
		require.Equal(t, tc.want, s.Stats().AdmittedCost, "cost %d: totals", tc.cost)
		require.Equal(t, tc.want, sum, "cost %d: buckets", tc.cost)
	}
}
