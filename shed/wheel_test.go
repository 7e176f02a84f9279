package shed

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestExpireWheel drives expire over several turns of the deadline wheel, with
// deadlines short and longer than a turn, against a brute-force model: after
// each sweep no queued request is past its deadline, every shed one was, and
// the earliest deadline reported is the model's minimum.
func TestExpireWheel(t *testing.T) {
	for _, tt := range []struct {
		name     string
		deadline time.Duration
	}{
		{"80ms", 80 * time.Millisecond},
		{"1.2s (past a turn of the wheel)", 1200 * time.Millisecond},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s, err := NewScheduler[int](Config{QueueDeadline: tt.deadline, StandingDeadline: 10 * time.Millisecond, MaxQueue: 1 << 20, MaxQueueCost: 1 << 40})
			require.NoError(t, err)
			r := rand.New(rand.NewPCG(1, 2))
			due := map[int]int64{} // queued request -> deadline, in s's time
			now, id := time.Unix(1_700_000_000, 0), 0
			for step := range 1000 {
				for range r.IntN(8) {
					id++
					_, dl, err := s.Push(now, fmt.Sprintf("t%d", r.IntN(500)), r.IntN(2), 1, id)
					require.NoError(t, err)
					due[id] = s.at(dl)
				}
				if r.IntN(4) == 0 { // some are served before their deadline
					if v, _, ok := s.Pop(now, 1, func(v int) { delete(due, v) }); ok {
						delete(due, v)
					}
				}
				now = now.Add(time.Duration(r.IntN(5000)) * time.Microsecond)
				at := s.at(now) + 1
				next, ok := s.expire(at, func(v int) {
					require.Less(t, due[v], at, "step %d: request %d shed before its deadline", step, v)
					delete(due, v)
				})
				want := int64(math.MaxInt64)
				for v, d := range due {
					require.GreaterOrEqual(t, d, at, "step %d: request %d kept past its deadline", step, v)
					want = min(want, d)
				}
				require.Equal(t, len(due) > 0, ok, "step %d", step)
				if ok {
					require.Equal(t, want, next, "step %d: earliest deadline", step)
				}
			}
		})
	}
}

// BenchmarkSchedulerExpire is a deadline sweep that sheds nothing, with one
// request queued for each of n tenants: its cost does not grow with n (a walk
// over the listed tenants took several milliseconds at 100,000).
func BenchmarkSchedulerExpire(b *testing.B) {
	for _, n := range []int{1350, 100_000} {
		b.Run(fmt.Sprintf("tenants=%d", n), func(b *testing.B) {
			s, err := NewScheduler[int](Config{MaxTenants: n})
			require.NoError(b, err)
			now := time.Unix(1_700_000_000, 0)
			for i := range n {
				_, _, err := s.Push(now.Add(time.Duration(i)*time.Microsecond), fmt.Sprint("t", i), 0, 1, i)
				require.NoError(b, err)
			}
			at := s.at(now.Add(time.Millisecond))
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				s.expire(at, nil)
			}
		})
	}
}
