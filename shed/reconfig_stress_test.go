package shed_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/shed"
)

// fixedDeadline is the queue deadline of the runs without SetConfig, where
// every timing is checked exactly on the virtual clock.
const fixedDeadline = 7 * time.Millisecond

// TestStressReconfigInvariants drives a Shedder on a virtual clock with
// random arrivals (Acquire with a live, timed or ended context, and
// TryAcquire), releases, and SetConfig calls that change every field
// (bounds, weights, deadlines, priorities, a Fixed or a CapacityFunc), and
// checks at every quiescent point that every call returned once and Stats
// counts it once, by bucket too. The runs without SetConfig also check each
// call's reason against its wait: shed at the queue deadline exactly, ended
// by its context at its timeout, admitted within the deadline.
func TestStressReconfigInvariants(t *testing.T) {
	for seed := range uint64(20) {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) { newReconf(t, seed, true).run() })
			synctest.Test(t, func(t *testing.T) { newReconf(t, seed, false).run() })
		})
	}
}

type reconfResult struct {
	id   int
	cost int64
	rel  func()
	err  error
	wait time.Duration
	pre  bool          // ctx ended before the call
	tmo  time.Duration // ctx timeout, 0 for none
}

type reconf struct {
	t                                  *testing.T
	r                                  *rand.Rand
	reconf                             bool
	lim                                atomic.Int64
	s                                  *shed.Shedder
	results                            chan reconfResult
	started, returned, admitted, shedN int
	canceled                           int
	held                               map[int]reconfResult
	heldCost                           int64
}

func newReconf(t *testing.T, seed uint64, withSetConfig bool) *reconf {
	h := &reconf{t: t, r: rand.New(rand.NewPCG(seed, 7)), reconf: withSetConfig,
		results: make(chan reconfResult, 1024), held: map[int]reconfResult{}}
	s, err := shed.New(h.randCfg())
	require.NoError(t, err)
	h.s = s
	return h
}

func (h *reconf) randCfg() shed.Config {
	r := h.r
	c := shed.Config{
		MaxQueue: 1 + r.IntN(4), MaxQueueCost: int64(1 + r.IntN(8)),
		QueueDeadline: time.Duration(1+r.IntN(20)) * time.Millisecond,
		MaxTenants:    1 + r.IntN(6), IdleTimeout: time.Duration(1+r.IntN(5)) * time.Millisecond,
		Priorities: 1 + r.IntN(4), Quantum: int64(1 + r.IntN(3)),
		Weights:           map[string]int{"t0": 1 + r.IntN(3), "t1": 1 + r.IntN(3)},
		FreshArrivalOrder: r.IntN(2) == 0, ShedOnArrival: r.IntN(2) == 0,
		OverShareWindow: time.Duration(1+r.IntN(30)) * time.Millisecond,
	}
	c.StandingDeadline = time.Duration(r.Int64N(int64(c.QueueDeadline) + 1))
	if !h.reconf {
		c.QueueDeadline, c.StandingDeadline, c.ShedOnArrival = fixedDeadline, fixedDeadline, false
	}
	if r.IntN(2) == 0 {
		c.Capacity = shed.Fixed(1 + r.IntN(6))
	} else {
		h.lim.Store(int64(1 + r.IntN(6)))
		c.Capacity = shed.CapacityFunc(func() int { return int(h.lim.Load()) })
	}
	return c
}

func (h *reconf) run() {
	for step := range 400 {
		switch k := h.r.IntN(10); {
		case k < 5:
			h.arrive()
		case k < 7:
			for id, res := range h.held {
				delete(h.held, id)
				h.heldCost -= res.cost
				res.rel()
				break
			}
		case k < 8 && h.reconf:
			require.NoError(h.t, h.s.SetConfig(h.randCfg()))
		default:
			time.Sleep(time.Duration(h.r.IntN(3000)) * time.Microsecond)
		}
		h.check(step)
	}
	h.s.Close()
	h.check(-1)
	for _, res := range h.held {
		res.rel()
	}
	require.Zero(h.t, h.s.Stats().InFlight)
}

func (h *reconf) arrive() {
	r, s := h.r, h.s
	id, cost := h.started, int64(1+r.IntN(8))
	tenant, prio := fmt.Sprint("t", r.IntN(6)), r.IntN(5)-1
	ctx, cancel := context.Background(), context.CancelFunc(func() {})
	pre, tmo := false, time.Duration(0)
	switch r.IntN(3) {
	case 0:
		tmo = time.Duration(r.IntN(10)) * time.Millisecond
		ctx, cancel = context.WithTimeout(ctx, tmo)
	case 1:
		ctx, cancel = context.WithCancel(ctx)
		cancel() // ended before the call
		pre = true
	}
	h.started++
	if r.IntN(5) == 0 {
		rel, err := s.TryAcquire(tenant, prio, cost)
		cancel()
		h.results <- reconfResult{id: id, cost: cost, rel: rel, err: err}
		return
	}
	go func() {
		defer cancel()
		t0 := time.Now()
		rel, err := s.Acquire(ctx, tenant, prio, cost)
		h.results <- reconfResult{id: id, cost: cost, rel: rel, err: err, wait: time.Since(t0), pre: pre, tmo: tmo}
	}()
}

// checkTiming checks a call's outcome against its wait.
func (h *reconf) checkTiming(res reconfResult) {
	t := h.t
	if res.pre && res.err != nil && !errors.Is(res.err, context.Canceled) {
		t.Fatalf("call %d with an ended ctx: %v", res.id, res.err)
	}
	if res.err == nil && res.wait > 20*time.Millisecond {
		t.Fatalf("call %d admitted after %v", res.id, res.wait)
	}
	if h.reconf {
		return
	}
	if res.err == nil && res.wait > fixedDeadline {
		t.Fatalf("call %d admitted after %v", res.id, res.wait)
	}
	var se *shed.ShedError
	if errors.As(res.err, &se) && se.Reason == shed.ReasonQueueDeadline &&
		(res.wait != fixedDeadline || (res.tmo > 0 && res.tmo < res.wait)) {
		t.Fatalf("call %d (ctx %v) shed at its deadline after %v", res.id, res.tmo, res.wait)
	}
	if errors.Is(res.err, context.DeadlineExceeded) && (res.wait != res.tmo || res.wait > fixedDeadline) {
		t.Fatalf("call %d (ctx %v) canceled after %v", res.id, res.tmo, res.wait)
	}
}

func (h *reconf) collect() {
	for {
		var res reconfResult
		select {
		case res = <-h.results:
		default:
			return
		}
		h.returned++
		h.checkTiming(res)
		switch {
		case res.err == nil:
			h.admitted++
			h.held[res.id] = res
			h.heldCost += res.cost
		case errors.Is(res.err, shed.ErrShed):
			h.shedN++
		case errors.Is(res.err, context.DeadlineExceeded), errors.Is(res.err, context.Canceled):
			h.canceled++
		default:
			h.t.Fatalf("unexpected error %v", res.err)
		}
	}
}

func (h *reconf) check(step int) {
	t := h.t
	synctest.Wait()
	h.collect()
	st := h.s.Stats()
	require.Equal(t, h.started-h.returned, st.Queued, "step %d: calls still blocked vs Queued", step)
	require.Equal(t, int64(h.admitted), st.Admitted, "step %d: admitted", step)
	require.Equal(t, int64(h.shedN), st.Shed(), "step %d: shed", step)
	require.Equal(t, int64(h.canceled), st.Canceled, "step %d: canceled", step)
	require.Equal(t, h.heldCost, st.InFlight, "step %d: in flight", step)
	var q int
	var qc, adm, sh, canc int64
	tenants, active := map[string]bool{}, map[string]bool{}
	for _, b := range h.s.Buckets() {
		q, qc = q+b.Queued, qc+b.QueuedCost
		adm, sh, canc = adm+b.Admitted, sh+b.Shed(), canc+b.Canceled
		tenants[b.Tenant] = true
		if b.Queued > 0 {
			active[b.Tenant] = true
		}
		require.LessOrEqual(t, b.ShedOnArrival, b.ShedQueueDeadline)
	}
	require.Equal(t, st.Queued, q, "step %d: queued by bucket", step)
	require.Equal(t, st.QueuedCost, qc, "step %d: queued cost by bucket", step)
	require.Equal(t, st.Tenants, len(tenants), "step %d: tenants", step)
	require.Equal(t, st.Active, len(active), "step %d: active", step)
	require.LessOrEqual(t, adm, st.Admitted)
	require.LessOrEqual(t, sh, st.Shed())
	require.LessOrEqual(t, canc, st.Canceled)
	if st.Reclaimed == 0 {
		require.Equal(t, [3]int64{st.Admitted, st.Shed(), st.Canceled}, [3]int64{adm, sh, canc}, "step %d: buckets vs totals", step)
	}
}
