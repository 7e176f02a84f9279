package shed_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"testing/synctest"

	"github.com/tierkit/tierkit/shed"
)

// TestShedderMatchesModel drives a Shedder (blocking Acquires, TryAcquire,
// releases, cancellations, capacity changes and Kick) and the reference model
// with a capacity gate around it, in a synctest bubble whose clock never
// moves (deadlines never pass here; TestSchedulerMatchesModel covers them),
// and compares after each step which requests were admitted or shed and
// the stats.
func TestShedderMatchesModel(t *testing.T) {
	for seed := range modelSeeds(t) {
		synctest.Test(t, func(t *testing.T) { runShedderModel(t, seed) })
	}
}

type shedderCall struct {
	id      int
	cost    int64
	cancel  context.CancelFunc
	done    chan error
	release func()
}

func runShedderModel(t *testing.T, seed uint64) {
	r := rand.New(rand.NewPCG(seed, 0x5ed))
	cfg := randomConfig(r, false)
	limit := 1 + r.IntN(12)
	cfg.Capacity = shed.CapacityFunc(func() int { return limit })
	s, err := shed.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	m := newRefModel(cfg)
	var inflight int64
	var log []string
	fail := func(format string, args ...any) {
		t.Helper()
		t.Fatalf("seed %d cfg %+v\nlast ops: %v\n%s", seed, cfg, log[max(len(log)-20, 0):], fmt.Sprintf(format, args...))
	}
	calls := map[int]*shedderCall{}
	var queued, held []int // ids waiting and admitted, in the model
	admitted := func(id int) {
		queued = slices.DeleteFunc(queued, func(q int) bool { return q == id })
		held = append(held, id)
		inflight += calls[id].cost
	}
	dispatch := func() {
		for m.queued() > 0 {
			avail := int64(max(limit, 1)) - inflight
			if inflight == 0 {
				avail = math.MaxInt64
			}
			if avail <= 0 {
				return
			}
			id, _, ok, _ := m.pop(0, avail)
			if !ok {
				return
			}
			admitted(id)
		}
		m.pop(0, 0) // nothing queued: every tenant leaves its list, as in the Shedder
	}
	fast := func(cost int64) bool {
		return m.queued() == 0 && (inflight == 0 || cost <= int64(max(limit, 1))-inflight)
	}
	ntenants := 2 + r.IntN(4)
	for step := range 150 {
		var want []int // ids the model decided this step
		before := slices.Clone(held)
		switch op := r.IntN(10); {
		case op < 5: // Acquire
			c := &shedderCall{id: step + 1, cost: int64(1 + r.IntN(8)), done: make(chan error, 1)}
			calls[c.id] = c
			name, prio := fmt.Sprint("t", r.IntN(ntenants)), r.IntN(3)
			log = append(log, fmt.Sprintf("acquire #%d %s p%d c%d", c.id, name, prio, c.cost))
			ctx, cancel := context.WithCancel(context.Background())
			c.cancel = cancel
			go func() {
				rel, err := s.Acquire(ctx, name, prio, c.cost)
				c.release = rel
				c.done <- err
			}()
			switch {
			case fast(c.cost):
				m.admit(0, name, prio, c.cost)
				held = append(held, c.id)
				inflight += c.cost
			default:
				if _, reason := m.push(0, name, prio, c.cost, c.id); reason != 0 {
					want = append(want, -c.id) // shed
					break
				}
				queued = append(queued, c.id)
				if inflight == 0 || int64(max(limit, 1)) > inflight {
					dispatch()
				}
			}
		case op < 7: // release a held request
			if len(held) == 0 {
				continue
			}
			i := r.IntN(len(held))
			id := held[i]
			held = slices.Delete(held, i, i+1)
			before = slices.Clone(held)
			log = append(log, fmt.Sprintf("release #%d", id))
			calls[id].release()
			inflight -= calls[id].cost
			dispatch()
		case op < 8: // cancel a waiting request
			if len(queued) == 0 {
				continue
			}
			id := queued[r.IntN(len(queued))]
			log = append(log, fmt.Sprintf("cancel #%d", id))
			calls[id].cancel()
			queued = slices.DeleteFunc(queued, func(q int) bool { return q == id })
			want = append(want, -id)
			m.remove(0, id, 0)
			dispatch()
		case op < 9: // TryAcquire
			name, cost := fmt.Sprint("t", r.IntN(ntenants)), int64(1+r.IntN(8))
			rel, err := s.TryAcquire(name, 1, cost)
			log = append(log, fmt.Sprintf("try %s c%d: %v", name, cost, err))
			if ok := fast(cost); ok != (err == nil) {
				fail("TryAcquire %s cost %d: %v, model admits %v", name, cost, err, ok)
			} else if ok {
				m.admit(0, name, 1, cost)
				rel()
			} else {
				m.refuse(0, name, 1, shed.ReasonNoCapacity)
			}
		default: // the capacity changes; Kick
			limit = r.IntN(14)
			log = append(log, fmt.Sprintf("limit %d, kick", limit))
			s.Kick()
			dispatch()
		}
		synctest.Wait()
		// Every call decided this step, in either direction, has returned.
		for _, id := range held {
			if !slices.Contains(before, id) {
				want = append(want, id)
			}
		}
		var got []int
		for id, c := range calls {
			select {
			case err := <-c.done:
				switch {
				case err == nil:
					got = append(got, id)
				case errors.Is(err, shed.ErrShed), errors.Is(err, context.Canceled):
					got = append(got, -id)
				default:
					fail("#%d: %v", id, err)
				}
			default:
			}
		}
		slices.Sort(got)
		slices.Sort(want)
		if !slices.Equal(got, want) {
			fail("step %d decided %v, model %v (- shed or canceled)", step, got, want)
		}
		st := s.Stats()
		mst := m.stats()
		mst.InFlight, mst.Limit = inflight, max(limit, 1)
		if st != mst {
			fail("stats:\n got %+v\nwant %+v", st, mst)
		}
	}
	for _, c := range calls {
		c.cancel()
	}
	s.Close()
}
