package shed_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/shed"
)

// TestDRRBoundWeighted checks the Scheduler's documented fairness bound on
// random weights, quanta, costs and priorities: while every tenant of the
// fresh list stays backlogged, after every Pop the cost per unit of weight
// served to any two tenants differs by at most a quantum plus the largest
// cost over each one's weight.
func TestDRRBoundWeighted(t *testing.T) {
	seeds := uint64(120)
	if raceEnabled {
		seeds = 30
	}
	for seed := range seeds {
		r := rand.New(rand.NewPCG(seed, 7))
		q, n, maxc := int64(1+r.IntN(8)), 2+r.IntN(4), int64(1+r.IntN(12))
		weights, ws := map[string]int{}, make([]int64, n)
		for i := range n {
			ws[i] = int64(1 + r.IntN(4))
			weights[fmt.Sprint("t", i)] = int(ws[i])
		}
		s := newSched(t, shed.Config{Quantum: q, Weights: weights, MaxQueue: 1 << 20, MaxQueueCost: 1 << 40,
			QueueDeadline: time.Hour, StandingDeadline: time.Hour})
		for range 1000 {
			for i := range n {
				c := 1 + r.Int64N(maxc)
				_, _, err := s.Push(t0, fmt.Sprint("t", i), r.IntN(2), c, req{seq: i, cost: c})
				require.NoError(t, err)
			}
		}
		served := make([]int64, n)
		for step := range 150 * n { // less than the lightest tenant's backlog
			v, _, ok := s.Pop(t0, math.MaxInt64, nil)
			require.True(t, ok)
			served[v.seq] += v.cost
			for i := range n {
				for j := range n {
					d := float64(served[i])/float64(ws[i]) - float64(served[j])/float64(ws[j])
					bound := float64(q) + float64(maxc)/float64(ws[i]) + float64(maxc)/float64(ws[j])
					if d > bound+1e-9 {
						t.Fatalf("seed %d (quantum %d, weights %v, costs up to %d), pop %d: served %v", seed, q, ws, maxc, step, served)
					}
				}
			}
		}
	}
}

// TestShedderQueueDeadlineBound drives a Shedder on a virtual clock with
// random arrivals, holds, costs, priorities and context timeouts, with every
// option combination: no Acquire returns later than QueueDeadline after it
// was called, whatever its outcome, and none is shed for its queue deadline
// before StandingDeadline (a shed on arrival returns at once). Every request
// is counted once.
func TestShedderQueueDeadlineBound(t *testing.T) {
	const qd, sd = 20 * time.Millisecond, 5 * time.Millisecond
	for round := range 4 {
		synctest.Test(t, func(t *testing.T) {
			s := newShedder(t, shed.Config{Capacity: shed.Fixed(3), MaxQueue: 16, QueueDeadline: qd, StandingDeadline: sd,
				FreshArrivalOrder: round&1 != 0, ShedOnArrival: round&2 != 0, OverShareWindow: 50 * time.Millisecond})
			var mu sync.Mutex
			var bad []string
			var admitted, shedN, canceled int64
			var wg sync.WaitGroup
			for w := range 20 {
				wg.Go(func() {
					rng := rand.New(rand.NewPCG(uint64(w), uint64(round)))
					for range 60 {
						time.Sleep(time.Duration(rng.IntN(3000)) * time.Microsecond)
						ctx, cancel := context.WithTimeout(context.Background(), time.Duration(rng.IntN(40))*time.Millisecond)
						start := time.Now()
						rel, err := s.Acquire(ctx, fmt.Sprint("t", rng.IntN(4)), rng.IntN(2), int64(1+rng.IntN(2)))
						waited := time.Since(start)
						cancel()
						var se *shed.ShedError
						mu.Lock()
						switch {
						case err == nil:
							admitted++
						case errors.As(err, &se):
							shedN++
						default:
							canceled++
						}
						if waited > qd {
							bad = append(bad, fmt.Sprintf("returned after %v: %v", waited, err))
						}
						if se != nil && se.Reason == shed.ReasonQueueDeadline && waited > 0 && waited < sd {
							bad = append(bad, fmt.Sprintf("shed for its deadline after %v", waited))
						}
						mu.Unlock()
						if err == nil {
							time.Sleep(time.Duration(rng.IntN(4000)) * time.Microsecond)
							rel()
						}
					}
				})
			}
			wg.Wait()
			st := s.Stats()
			assert.Empty(t, bad[:min(len(bad), 5)], "%d requests", len(bad))
			assert.Equal(t, admitted, st.Admitted)
			assert.Equal(t, shedN, st.Shed())
			assert.Equal(t, canceled, st.Canceled)
			assert.Zero(t, st.InFlight)
			assert.Zero(t, st.Queued)
			assert.Positive(t, st.ShedQueueDeadline, "the load queues past the deadline")
		})
	}
}

// TestShedderWeightedFloods: two tenants flooding a Shedder, A of weight 3,
// share the capacity 3:1 by cost, whatever their request costs and the
// drain order option. The share is counted from one OverShareWindow on (the
// share level is set by then) and held to a round robin's bound: A's cost
// and three times B's differ by at most one request of each at either end
// of that span. Over the whole run, the first window's start gave B up to
// 3.5 requests more in 1 of 100 runs (A 999, B 340 at costs 3 and 2).
func TestShedderWeightedFloods(t *testing.T) {
	for _, arrival := range []bool{false, true} {
		for _, c := range []struct{ a, b int64 }{{1, 4}, {3, 2}} {
			synctest.Test(t, func(t *testing.T) {
				s := newShedder(t, shed.Config{Capacity: shed.Fixed(4), MaxQueue: 8, QueueDeadline: 20 * time.Millisecond,
					Weights: map[string]int{"A": 3}, FreshArrivalOrder: arrival, OverShareWindow: 100 * time.Millisecond})
				ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
				defer cancel()
				var mu sync.Mutex
				got := map[string]int64{}
				var wg sync.WaitGroup
				settled := time.Now().Add(100 * time.Millisecond)
				for _, tenant := range []string{"A", "B"} {
					cost := c.a
					if tenant == "B" {
						cost = c.b
					}
					for range 16 {
						wg.Go(func() {
							for ctx.Err() == nil {
								rel, err := s.Acquire(ctx, tenant, 0, cost)
								if err != nil {
									time.Sleep(100 * time.Microsecond)
									continue
								}
								admitted := time.Now()
								time.Sleep(time.Millisecond)
								rel()
								if admitted.Before(settled) {
									continue
								}
								mu.Lock()
								got[tenant] += cost
								mu.Unlock()
							}
						})
					}
				}
				wg.Wait()
				lag := got["A"] - 3*got["B"]
				bound := 2 * (c.a + 3*c.b)
				assert.LessOrEqual(t, max(lag, -lag), bound, "arrival order %v, costs %v: A %d, B %d", arrival, c, got["A"], got["B"])
				assert.Greater(t, got["B"], int64(200), "B is served")
			})
		}
	}
}

// TestShedderFloodSparesLightTenants: one tenant floods a Shedder from 32
// goroutines while 40 light tenants ask for half the capacity between them:
// no light request is shed or waits for the flood, with each option.
func TestShedderFloodSparesLightTenants(t *testing.T) {
	for round := range 4 {
		synctest.Test(t, func(t *testing.T) {
			s := newShedder(t, shed.Config{Capacity: shed.Fixed(4), MaxQueue: 16, QueueDeadline: 20 * time.Millisecond,
				FreshArrivalOrder: round&1 != 0, ShedOnArrival: round&2 != 0, OverShareWindow: 100 * time.Millisecond})
			ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
			defer cancel()
			var mu sync.Mutex
			var flood, light, lightShed int64
			var lightWait time.Duration
			var wg sync.WaitGroup
			for range 32 {
				wg.Go(func() {
					for ctx.Err() == nil {
						rel, err := s.Acquire(ctx, "F", 0, 1)
						if err != nil {
							time.Sleep(100 * time.Microsecond)
							continue
						}
						time.Sleep(time.Millisecond)
						rel()
						mu.Lock()
						flood++
						mu.Unlock()
					}
				})
			}
			for i := range 40 {
				wg.Go(func() {
					time.Sleep(time.Duration(i) * 500 * time.Microsecond)
					for ctx.Err() == nil {
						start := time.Now()
						rel, err := s.Acquire(context.Background(), fmt.Sprint("L", i), 0, 1)
						waited := time.Since(start)
						mu.Lock()
						if err != nil {
							lightShed++
						} else {
							light++
							lightWait = max(lightWait, waited)
						}
						mu.Unlock()
						if err == nil {
							time.Sleep(time.Millisecond)
							rel()
						}
						time.Sleep(20 * time.Millisecond)
					}
				})
			}
			wg.Wait()
			assert.Zero(t, lightShed)
			assert.LessOrEqual(t, lightWait, time.Millisecond, "a light request waits at most for one release")
			assert.Greater(t, flood, light/2, "the flood gets the rest")
			assert.Positive(t, s.Stats().ShedBucketFull+s.Stats().ShedQueueDeadline, "the flood is shed")
		})
	}
}
