package shed_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/shed"
)

// FuzzScheduler drives a Scheduler with an arbitrary sequence of operations and
// checks after each step that every queued request is accounted for exactly once
// (popped, expired, removed, or still queued), that Pop never exceeds the free
// capacity it is given, and that the gauges agree with a naive model.
func FuzzScheduler(f *testing.F) {
	f.Add([]byte{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11})
	f.Add([]byte{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 3, 3, 3, 3, 3})
	f.Add([]byte{16, 32, 48, 64, 80, 96, 112, 128, 144, 160, 1, 1, 1, 4, 4, 2, 2})
	f.Fuzz(runOps)
}

func runOps(t *testing.T, ops []byte) {
	if len(ops) > 4096 { // longer inputs add time, not states
		ops = ops[:4096]
	}
	for _, arrival := range []bool{false, true} { // both drain orders of the fresh list, and shedding at deadlines or on arrival
		s, err := shed.NewScheduler[int](shed.Config{
			MaxQueue: 3, MaxQueueCost: 6, Quantum: 2, MaxTenants: 4,
			QueueDeadline: 40 * time.Millisecond, StandingDeadline: 10 * time.Millisecond,
			IdleTimeout: time.Second, Weights: map[string]int{"t1": 2}, FreshArrivalOrder: arrival, ShedOnArrival: arrival,
		})
		require.NoError(t, err)
		tenants := []string{"t0", "t1", "t2", "t3", "t4", "t5"}
		now := t0
		var handles []shed.Handle[int]
		ids := map[shed.Handle[int]]int{}
		queued := map[int]bool{}        // request id -> still queued
		deadline := map[int]time.Time{} // request id -> its deadline
		id := 0
		gone := func(v int) {
			require.True(t, queued[v], "request %d left twice or was never queued", v)
			delete(queued, v)
		}
		for i, op := range ops {
			arg := int(op >> 3)
			switch op & 7 {
			case 0, 1: // push
				id++
				h, dl, err := s.Push(now, tenants[arg%len(tenants)], arg%2, int64(1+arg%4), id)
				if err == nil {
					queued[id], deadline[id] = true, dl
					handles = append(handles, h)
					ids[h] = id
				}
			case 2, 3: // pop with some capacity
				avail := int64(arg % 5)
				v, cost, ok := s.Pop(now, avail, gone)
				if ok {
					require.LessOrEqual(t, cost, avail)
					gone(v)
				}
			case 4: // remove a handle, maybe stale
				if len(handles) > 0 {
					h := handles[arg%len(handles)]
					before := s.Stats().Queued
					if s.Remove(now, h, 0) {
						require.Equal(t, before-1, s.Stats().Queued)
						gone(ids[h])
					}
				}
			case 5:
				now = now.Add(time.Duration(arg) * time.Millisecond)
			case 6:
				s.Expire(now, gone)
				for v := range queued { // every request past its deadline is gone
					require.False(t, deadline[v].Before(now), "step %d: request %d kept past its deadline", i, v)
				}
			case 7:
				s.Admit(now, tenants[arg%len(tenants)], arg%2, 1)
			}
			st := s.Stats()
			sum := 0
			for _, b := range s.Buckets(nil) {
				sum += b.Queued
			}
			require.Equal(t, st.Queued, sum, "step %d", i)
			require.Equal(t, len(queued), st.Queued, "step %d: the queued requests the model holds", i)
			require.GreaterOrEqual(t, st.Queued, 0)
			require.LessOrEqual(t, st.ShedOnArrival, st.ShedQueueDeadline, "step %d", i)
			if !arrival {
				require.Zero(t, st.ShedOnArrival)
			}
		}
		// Drain: everything still queued leaves exactly once.
		for s.Stats().Queued > 0 {
			v, _, ok := s.Pop(now, 1<<40, gone)
			require.True(t, ok || s.Stats().Queued == 0, "Pop refused with %d queued", s.Stats().Queued)
			if ok {
				gone(v)
			}
		}
		st := s.Stats()
		require.Equal(t, int64(0), st.QueuedCost)
		require.Equal(t, 0, st.Active)
		require.Empty(t, queued, "requests never accounted for")
	}
}
