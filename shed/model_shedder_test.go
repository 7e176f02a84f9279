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
	"time"

	"github.com/tierkit/tierkit/shed"
)

// TestShedderMatchesModel drives a Shedder (blocking Acquires, TryAcquire,
// releases, cancellations, capacity changes and Kick, SetConfig, the clock
// moving past queue deadlines, Close with requests queued) and the reference
// model with a capacity gate around it, in a synctest bubble whose clock moves
// only when the test sleeps, and compares after each step which requests were
// admitted or shed and the stats. The deadline sweep fires at the earliest
// queued deadline, so the model, when time passes, expires what is due at
// each deadline in turn and admits what that frees.
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
	capFunc := shed.CapacityFunc(func() int { return limit })
	cfg.Capacity = capFunc
	s, err := shed.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	m := newRefModel(cfg)
	start := time.Now()
	now := func() int64 { return int64(time.Since(start)) }
	var inflight int64
	var log []string
	fail := func(format string, args ...any) {
		t.Helper()
		t.Fatalf("seed %d cfg %+v\nlast ops: %v\n%s", seed, cfg, log[max(len(log)-20, 0):], fmt.Sprintf(format, args...))
	}
	calls := map[int]*shedderCall{}
	defer func() { // on a failure too: the bubble must end with no goroutine blocked
		for _, c := range calls {
			c.cancel()
		}
		s.Close()
	}()
	var queued, held []int // ids waiting and admitted, in the model
	admitted := func(id int) {
		queued = slices.DeleteFunc(queued, func(q int) bool { return q == id })
		held = append(held, id)
		inflight += calls[id].cost
	}
	var want []int // ids the model decided this step
	drop := func(ids []int) {
		for _, id := range ids {
			queued = slices.DeleteFunc(queued, func(q int) bool { return q == id })
			want = append(want, -id)
		}
	}
	dispatch := func() {
		at := now()
		for m.queued() > 0 {
			avail := int64(max(limit, 1)) - inflight
			if inflight == 0 {
				avail = math.MaxInt64
			}
			if avail <= 0 {
				return
			}
			id, _, ok, exp := m.pop(at, avail)
			drop(exp)
			if !ok {
				break
			}
			admitted(id)
		}
		if m.queued() == 0 {
			m.pop(at, 0) // nothing queued: every tenant leaves its list, as in the Shedder
		}
	}
	// The Shedder reads the clock on every 64th direct admission only (its
	// coarse clock, which Stats' ShareLevel reads).
	var direct int
	admit := func(name string, prio int, cost int64) {
		if direct++; direct%64 == 0 {
			m.see(now())
		}
		m.admit(m.latest, name, prio, cost)
	}
	isClosed := false
	fast := func(cost int64) bool {
		return !isClosed && m.queued() == 0 && (inflight == 0 || cost <= int64(max(limit, 1))-inflight)
	}
	ntenants := 2 + r.IntN(4)
	for step := range 150 {
		want = want[:0]
		before := slices.Clone(held)
		switch op := r.IntN(100); {
		case op < 45: // Acquire
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
			case isClosed:
				m.refuse(now(), name, prio, shed.ReasonClosed)
				want = append(want, -c.id)
			case fast(c.cost):
				admit(name, prio, c.cost)
				held = append(held, c.id)
				inflight += c.cost
			default:
				marks := m.overShed
				if _, reason := m.push(now(), name, prio, c.cost, c.id); reason != 0 {
					want = append(want, -c.id) // shed
					if m.overShed != marks && (inflight == 0 || int64(max(limit, 1)) > inflight) {
						// The shed marked its tenant over its share: its
						// head no longer holds back the fresh list.
						dispatch()
					}
					break
				}
				queued = append(queued, c.id)
				if inflight == 0 || int64(max(limit, 1)) > inflight {
					dispatch()
				}
			}
		case op < 63: // release a held request
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
		case op < 71: // cancel a waiting request
			if len(queued) == 0 {
				continue
			}
			id := queued[r.IntN(len(queued))]
			log = append(log, fmt.Sprintf("cancel #%d", id))
			calls[id].cancel()
			drop([]int{id})
			m.remove(now(), id, 0)
			dispatch()
		case op < 79: // TryAcquire
			name, cost := fmt.Sprint("t", r.IntN(ntenants)), int64(1+r.IntN(8))
			rel, err := s.TryAcquire(name, 1, cost)
			log = append(log, fmt.Sprintf("try %s c%d: %v", name, cost, err))
			if ok := fast(cost); ok != (err == nil) {
				fail("TryAcquire %s cost %d: %v, model admits %v", name, cost, err, ok)
			} else if ok {
				admit(name, 1, cost)
				rel()
			} else if isClosed {
				m.refuse(now(), name, 1, shed.ReasonClosed)
			} else {
				m.refuse(now(), name, 1, shed.ReasonNoCapacity)
			}
		case op < 86: // the capacity changes (unless Fixed); Kick
			if _, ok := cfg.Capacity.(shed.Fixed); !ok {
				limit = r.IntN(14)
			}
			log = append(log, fmt.Sprintf("limit %d, kick", limit))
			s.Kick()
			dispatch()
		case op < 93: // time passes: the sweep sheds each deadline as it falls due
			to := now() + int64(time.Duration(r.IntN(30_000))*time.Microsecond)
			log = append(log, fmt.Sprintf("sleep to %v", time.Duration(to)))
			for {
				due, ok := m.earliest()
				if !ok || due > to {
					break
				}
				time.Sleep(time.Duration(due - now()))
				synctest.Wait()
				// The sweep sheds the deadlines not after now, then
				// admits what fits.
				if exp := m.expire(due + 1); len(exp) > 0 {
					drop(exp)
					dispatch()
				}
			}
			time.Sleep(time.Duration(to - now()))
		case op < 98: // SetConfig
			c := cfg
			switch r.IntN(5) {
			case 0:
				limit = r.IntN(14)
				c.Capacity = shed.Fixed(limit)
				if r.IntN(2) == 0 {
					c.Capacity = capFunc
				}
			case 1:
				c.Weights = map[string]int{}
				for i := range ntenants {
					if r.IntN(2) == 0 {
						c.Weights[fmt.Sprint("t", i)] = 1 + r.IntN(4)
					}
				}
				c.Quantum = int64(1 + r.IntN(8))
			case 2:
				c.MaxQueue, c.MaxQueueCost = 1+r.IntN(6), int64(1+r.IntN(40))
			case 3:
				c.FreshArrivalOrder, c.ShedOnArrival = r.IntN(2) == 0, r.IntN(2) == 0
			case 4:
				c.QueueDeadline = time.Duration(5+r.IntN(60)) * time.Millisecond
				c.StandingDeadline = min(time.Duration(1+r.IntN(60))*time.Millisecond, c.QueueDeadline)
			}
			log = append(log, fmt.Sprintf("config %+v (limit %d)", c, limit))
			if err := s.SetConfig(c); err != nil {
				fail("SetConfig: %v", err)
			}
			lowered := c.QueueDeadline < cfg.QueueDeadline || c.StandingDeadline < cfg.StandingDeadline
			cfg = c
			m.see(now()) // SetConfig reads the clock (Stats' ShareLevel is as of it)
			m.setConfig(c)
			if lowered {
				// The queued requests now past their deadlines are
				// shed before SetConfig returns.
				drop(m.expire(now() + 1))
			}
			dispatch()
		default: // Close, with requests queued or not
			log = append(log, "close")
			s.Close()
			isClosed = true
			for _, id := range slices.Clone(queued) {
				m.remove(now(), id, shed.ReasonClosed)
				drop([]int{id})
			}
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
}
