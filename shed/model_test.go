package shed_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tierkit/tierkit/shed"
)

// modelSeeds is how many seeds the model tests run: 15 by default, more with
// SHED_MODEL_SEEDS=n (for instance SHED_MODEL_SEEDS=2000 go test -run Model ./shed/).
func modelSeeds(t *testing.T) uint64 {
	n := uint64(15)
	if v := os.Getenv("SHED_MODEL_SEEDS"); v != "" {
		m, err := strconv.ParseUint(v, 10, 64)
		if err != nil {
			t.Fatalf("SHED_MODEL_SEEDS=%q: %v", v, err)
		}
		n = m
	}
	return n
}

// randomConfig returns a small configuration, so that bounds, deadlines,
// windows and levels are all reached within a few hundred operations.
func randomConfig(r *rand.Rand, reclaim bool) shed.Config {
	ms := time.Millisecond
	qd := time.Duration(5+r.IntN(60)) * ms
	c := shed.Config{
		Priorities:        1 + r.IntN(3),
		Quantum:           int64(1 + r.IntN(8)),
		MaxQueue:          1 + r.IntN(6),
		MaxQueueCost:      int64(1 + r.IntN(40)),
		QueueDeadline:     qd,
		StandingDeadline:  time.Duration(1+r.Int64N(int64(qd/ms))) * ms,
		OverShareWindow:   time.Duration(10+r.IntN(150)) * ms,
		FreshArrivalOrder: r.IntN(2) == 0,
		ShedOnArrival:     r.IntN(2) == 0,
		Weights:           map[string]int{},
		MaxTenants:        1 << 20,
		IdleTimeout:       1 << 50,
	}
	for i := range 6 {
		if r.IntN(3) == 0 {
			c.Weights[fmt.Sprint("t", i)] = 1 + r.IntN(4)
		}
	}
	if reclaim {
		c.MaxTenants = 2 + r.IntN(4)
		c.IdleTimeout = time.Duration(5+r.IntN(50)) * ms
	}
	return c
}

// TestSchedulerMatchesModel drives a Scheduler and the reference model of
// model_ref_test.go with the same random operations (pushes of random tenant,
// priority and cost, pops with random free capacity, time steps, sweeps,
// removals, refusals, direct admissions, configuration changes) and compares
// after each step what was popped, shed (and why) and every bucket's stats.
func TestSchedulerMatchesModel(t *testing.T) {
	for seed := range modelSeeds(t) {
		runModel(t, seed, false)
	}
}

// TestSchedulerMatchesModelReclaim is the same with MaxTenants and IdleTimeout
// small: the model cannot know which idle tenant the sampled LRU picks, so it
// checks that a reclaimed tenant had nothing queued (and, idle, was not seen
// for IdleTimeout) and forgets it too.
func TestSchedulerMatchesModelReclaim(t *testing.T) {
	for seed := range modelSeeds(t) {
		runModel(t, seed, true)
	}
}

type modelRun struct {
	t       *testing.T
	seed    uint64
	s       *shed.Scheduler[int]
	m       *refModel
	cfg     shed.Config
	reclaim bool
	log     []string
	handles map[int]shed.Handle[int]
}

func (x *modelRun) fail(format string, args ...any) {
	x.t.Helper()
	tail := x.log[max(len(x.log)-25, 0):]
	x.t.Fatalf("seed %d (reclaim %v) cfg %+v\nlast ops:\n  %s\n%s", x.seed, x.reclaim, x.cfg,
		strings.Join(tail, "\n  "), fmt.Sprintf(format, args...))
}

func runModel(t *testing.T, seed uint64, reclaim bool) {
	r := rand.New(rand.NewPCG(seed, 0x5eed))
	cfg := randomConfig(r, reclaim)
	s, err := shed.NewScheduler[int](cfg)
	if err != nil {
		t.Fatal(err)
	}
	x := &modelRun{t: t, seed: seed, s: s, m: newRefModel(cfg), cfg: cfg, reclaim: reclaim,
		handles: map[int]shed.Handle[int]{}}
	epoch := time.Unix(1_700_000_000, 0)
	var at int64
	now := func() time.Time { return epoch.Add(time.Duration(at)) }
	ntenants := 2 + r.IntN(5)
	tenant := func() string { return fmt.Sprint("t", r.IntN(ntenants)) }
	id := 0
	for step := range 400 {
		switch op := r.IntN(100); {
		case op < 40: // push
			id++
			name, prio := tenant(), r.IntN(4)-1
			cost := int64(1 + r.IntN(12))
			if r.IntN(10) == 0 {
				cost = int64(r.IntN(60)) // up to beyond the bucket's cost bound, or below 1
			}
			x.log = append(x.log, fmt.Sprintf("%d @%v push #%d %s p%d c%d", step, time.Duration(at), id, name, prio, cost))
			h, dl, err := s.Push(now(), name, prio, cost, id)
			mdl, mr := x.m.push(at, name, prio, cost, id)
			var got shed.Reason
			if se := (*shed.ShedError)(nil); err != nil {
				if e, ok := err.(*shed.ShedError); ok {
					se = e
				}
				got = se.Reason
			}
			if got != mr {
				x.fail("push #%d: shed reason %v, model %v", id, got, mr)
			}
			if err == nil {
				x.handles[id] = h
				if d := int64(dl.Sub(epoch)); d != mdl {
					x.fail("push #%d: deadline %v, model %v", id, time.Duration(d), time.Duration(mdl))
				}
			}
		case op < 70: // pop with some free capacity
			avail := int64(r.IntN(15))
			if r.IntN(4) == 0 {
				avail = math.MaxInt64
			}
			var exp []int
			v, cost, ok := s.Pop(now(), avail, func(v int) { exp = append(exp, v) })
			mv, mcost, mok, mexp := x.m.pop(at, avail)
			x.log = append(x.log, fmt.Sprintf("%d @%v pop avail %d: %v #%d c%d expired %v", step, time.Duration(at), avail, ok, v, cost, exp))
			if ok != mok || v != mv || cost != mcost {
				x.fail("pop: got ok=%v #%d cost %d, model ok=%v #%d cost %d", ok, v, cost, mok, mv, mcost)
			}
			x.sameSet("pop expired", exp, mexp)
		case op < 82: // time passes
			at += int64(time.Duration(r.IntN(8000)) * time.Microsecond)
			if r.IntN(20) == 0 {
				at += int64(time.Duration(r.IntN(300)) * time.Millisecond)
			}
			x.log = append(x.log, fmt.Sprintf("%d -> @%v", step, time.Duration(at)))
		case op < 86: // sweep
			var exp []int
			s.Expire(now(), func(v int) { exp = append(exp, v) })
			x.log = append(x.log, fmt.Sprintf("%d @%v expire: %v", step, time.Duration(at), exp))
			x.sameSet("expire", exp, x.m.expire(at))
		case op < 91: // remove a request, maybe gone already
			if id == 0 {
				continue
			}
			rid := 1 + r.IntN(id)
			reason := shed.Reason(r.IntN(4)) // 0 (canceled) to ReasonClosed
			got := s.Remove(now(), x.handles[rid], reason)
			x.log = append(x.log, fmt.Sprintf("%d @%v remove #%d %v: %v", step, time.Duration(at), rid, reason, got))
			if want := x.m.remove(at, rid, reason); got != want {
				x.fail("remove #%d: %v, model %v", rid, got, want)
			}
		case op < 94: // a direct admission, or a refusal
			name, prio := tenant(), r.IntN(4)-1
			if r.IntN(2) == 0 {
				x.log = append(x.log, fmt.Sprintf("%d @%v admit %s p%d", step, time.Duration(at), name, prio))
				s.Admit(now(), name, prio, 3)
				x.m.admit(at, name, prio, 3)
			} else {
				reason := shed.Reason(r.IntN(5)) // 0 (canceled) to ReasonNoCapacity
				x.log = append(x.log, fmt.Sprintf("%d @%v refuse %s p%d %v", step, time.Duration(at), name, prio, reason))
				s.Refuse(now(), name, prio, reason)
				x.m.refuse(at, name, prio, reason)
			}
		default: // a configuration change
			c := x.cfg
			switch r.IntN(7) {
			case 0:
				c.Weights = map[string]int{}
				for i := range ntenants {
					if r.IntN(2) == 0 {
						c.Weights[fmt.Sprint("t", i)] = 1 + r.IntN(4)
					}
				}
			case 1:
				c.MaxQueue = 1 + r.IntN(6)
			case 2:
				c.MaxQueueCost = int64(1 + r.IntN(40))
			case 3:
				c.Quantum = int64(1 + r.IntN(8))
			case 4:
				c.FreshArrivalOrder, c.ShedOnArrival = r.IntN(2) == 0, r.IntN(2) == 0
			case 5:
				c.QueueDeadline = time.Duration(5+r.IntN(60)) * time.Millisecond
				c.StandingDeadline = time.Duration(1+r.IntN(60)) * time.Millisecond
				c.StandingDeadline = min(c.StandingDeadline, c.QueueDeadline)
			case 6:
				c.OverShareWindow = time.Duration(10+r.IntN(150)) * time.Millisecond
			}
			x.log = append(x.log, fmt.Sprintf("%d @%v config %+v", step, time.Duration(at), c))
			if err := s.SetConfig(c); err != nil {
				x.fail("SetConfig: %v", err)
			}
			x.cfg = c
			x.m.setConfig(c)
		}
		x.compare()
	}
	// Drain: both serve what is left in the same order.
	for x.m.queued() > 0 {
		v, _, ok := s.Pop(now(), math.MaxInt64, nil)
		mv, _, mok, _ := x.m.pop(at, math.MaxInt64)
		if ok != mok || v != mv {
			x.fail("drain: got %v #%d, model %v #%d", ok, v, mok, mv)
		}
		x.compare()
	}
}

func (x *modelRun) sameSet(what string, got, want []int) {
	x.t.Helper()
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		x.fail("%s: %v, model %v", what, got, want)
	}
}

// compare checks every bucket's stats and the totals against the model, after
// letting the model forget the tenants the scheduler reclaimed.
func (x *modelRun) compare() {
	x.t.Helper()
	got := x.s.Buckets(nil)
	slices.SortFunc(got, func(a, b shed.BucketStats) int {
		return strings.Compare(fmt.Sprint(a.Tenant, a.Priority), fmt.Sprint(b.Tenant, b.Priority))
	})
	kept := map[string]bool{}
	for _, b := range got {
		kept[b.Tenant] = true
	}
	forgot := 0
	// The tenants the model kept before this step's reclamations: one step
	// can evict a tenant for MaxTenants and reclaim an idle one too, and
	// the eviction is judged by the count it was made at, not by the count
	// left once the idle one is forgotten.
	before := len(x.m.tenants)
	for _, name := range x.m.names() {
		if kept[name] {
			continue
		}
		forgot++
		mt := x.m.tenants[name]
		if !x.reclaim {
			x.fail("tenant %s reclaimed", name)
		}
		if mt.queued() > 0 {
			x.fail("tenant %s reclaimed with %d queued", name, mt.queued())
		}
		// Idle for IdleTimeout (on a clock of about a millisecond), or
		// evicted for a new tenant beyond MaxTenants.
		idle := x.m.latest-mt.seen >= int64(x.cfg.IdleTimeout-2*time.Millisecond)
		if !idle && before <= x.cfg.MaxTenants {
			x.fail("tenant %s reclaimed, seen %v ago, %d tenants", name, time.Duration(x.m.latest-mt.seen), before)
		}
		x.m.forget(name)
	}
	created := x.m.created
	x.m.created = ""
	if x.reclaim && created != "" && forgot == 0 && len(x.m.tenants) > x.cfg.MaxTenants {
		// Beyond MaxTenants a tenant was just created and none was
		// reclaimed: there was no idle one to evict: with so few tenants every one is
		// sampled. Idle is nothing queued and off the drain lists: a tenant
		// whose queue emptied is listed until Pop reaches it (Config's doc).
		for _, name := range x.m.names() {
			if mt := x.m.tenants[name]; mt.queued() == 0 && !mt.listed && name != created {
				x.fail("%d tenants kept, over MaxTenants %d, with %s idle", len(x.m.tenants), x.cfg.MaxTenants, name)
			}
		}
	}
	want := x.m.buckets()
	if !slices.Equal(got, want) {
		x.fail("buckets:\n got %+v\nwant %+v", got, want)
	}
	if g, w := x.s.Stats(), x.m.stats(); g != w {
		x.fail("stats:\n got %+v\nwant %+v", g, w)
	}
}
