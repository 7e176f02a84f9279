package shed_test

import (
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/shed"
)

// FuzzSchedulerConfig builds Configs from arbitrary field values (huge,
// negative and zero ones included), and swaps a second one in halfway
// through a run of operations. Invariants: New and SetConfig either accept a
// Config or return an error wrapping ErrInvalidConfig (SetConfig then keeps
// the old one); under any accepted Config no operation panics or hangs, Pop
// never spends more than the capacity it is given, the gauges agree with the
// buckets, and every queued request leaves exactly once.
func FuzzSchedulerConfig(f *testing.F) {
	f.Add(int8(2), int64(1), int16(3), int64(6), int64(40e6), int64(10e6), int64(1e9), int32(4), int64(1e9), int32(2), uint8(3),
		int8(4), int64(1<<62), int64(-1), int32(1<<30), []byte{0, 1, 8, 2, 3, 5, 6, 7, 16, 24})
	f.Add(int8(0), int64(0), int16(0), int64(0), int64(0), int64(0), int64(0), int32(0), int64(0), int32(0), uint8(0),
		int8(64), int64(0), int64(1<<63-1), int32(1), []byte{0, 0, 0, 0, 2, 2, 2, 4, 5, 6})
	f.Add(int8(1), int64(1<<63-1), int16(1), int64(1<<63-1), int64(1<<63-1), int64(1<<63-1), int64(1<<63-1), int32(1), int64(1<<63-1), int32(1<<31-1), uint8(1),
		int8(-1), int64(1<<63-1), int64(1<<63-1), int32(-1), []byte{0, 8, 16, 2, 10, 5, 255, 6, 3})
	f.Fuzz(func(t *testing.T, prio int8, quantum int64, maxQueue int16, maxQueueCost, qd, sd, osw int64, maxTenants int32,
		idle int64, weight int32, flags uint8, prio2 int8, quantum2, qd2 int64, weight2 int32, ops []byte) {
		if len(ops) > 512 {
			ops = ops[:512]
		}
		cfg := shed.Config{
			Priorities: int(prio), Quantum: quantum, MaxQueue: int(maxQueue), MaxQueueCost: maxQueueCost,
			QueueDeadline: time.Duration(qd), StandingDeadline: time.Duration(sd), OverShareWindow: time.Duration(osw),
			MaxTenants: int(maxTenants), IdleTimeout: time.Duration(idle), Weights: map[string]int{"t1": int(weight)},
			FreshArrivalOrder: flags&1 != 0, ShedOnArrival: flags&2 != 0,
		}
		s, err := shed.NewScheduler[int](cfg)
		if err != nil {
			require.True(t, errors.Is(err, shed.ErrInvalidConfig), "%v", err)
			return
		}
		cfg2 := cfg
		cfg2.Priorities, cfg2.Quantum, cfg2.QueueDeadline = int(prio2), quantum2, time.Duration(qd2)
		cfg2.Weights = map[string]int{"t2": int(weight2), "t1": int(weight)}
		tenants := []string{"t0", "t1", "t2", "t3"}
		now := time.Unix(1_700_000_000, 0)
		var handles []shed.Handle[int]
		ids := map[shed.Handle[int]]int{}
		queued := map[int]bool{}
		gone := func(v int) {
			require.True(t, queued[v], "request %d left twice or was never queued", v)
			delete(queued, v)
		}
		id := 0
		for i, op := range ops {
			if i == len(ops)/2 {
				if err := s.SetConfig(cfg2); err != nil {
					require.True(t, errors.Is(err, shed.ErrInvalidConfig), "%v", err)
				}
			}
			arg := int(op >> 3)
			switch op & 7 {
			case 0, 1:
				id++
				cost := int64(1 + arg%4)
				if arg == 31 {
					cost = 1 << 62 // a cost beyond any bucket bound
				}
				h, _, err := s.Push(now, tenants[arg%len(tenants)], arg%3-1+int(prio)%3, cost, id)
				if err == nil {
					queued[id] = true
					handles = append(handles, h)
					ids[h] = id
				}
			case 2, 3:
				avail := int64(arg % 5)
				if arg == 31 {
					avail = 1<<63 - 1
				}
				if v, cost, ok := s.Pop(now, avail, gone); ok {
					require.LessOrEqual(t, cost, avail)
					gone(v)
				}
			case 4:
				if len(handles) > 0 {
					h := handles[arg%len(handles)]
					if s.Remove(now, h, 0) {
						gone(ids[h])
					}
				}
			case 5:
				now = now.Add(time.Duration(1) << (arg % 40)) // up to about 9 minutes
			case 6:
				s.Expire(now, gone)
			case 7:
				s.Admit(now, tenants[arg%len(tenants)], arg%2, int64(arg))
			}
			st := s.Stats()
			sum := 0
			for _, b := range s.Buckets(nil) {
				sum += b.Queued
			}
			require.Equal(t, st.Queued, sum, "step %d", i)
			require.Equal(t, len(queued), st.Queued, "step %d", i)
		}
		for s.Stats().Queued > 0 {
			v, _, ok := s.Pop(now, 1<<62, gone) // the expired leave through gone
			require.True(t, ok || s.Stats().Queued == 0, "Pop refused with %d queued", s.Stats().Queued)
			if ok {
				gone(v)
			}
		}
		require.Empty(t, queued, "requests never accounted for")
		require.Zero(t, s.Stats().QueuedCost)
	})
}
