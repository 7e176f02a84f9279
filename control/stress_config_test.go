package control_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/control"
)

// stressRig drives a registry on an explicit clock from several goroutines
// and tallies what each call returned, for the checks that follow the run.
type stressRig struct {
	reg   *control.Registry
	h     http.Handler
	clock atomic.Int64 // nanoseconds after base; only moves forward
	comp  [stressKnobs]atomic.Int64
	calls atomic.Int64 // Apply calls of the flaky knob s3

	// budget guards the budget-relevant Config: SetConfigAt with a new Rate
	// or Burst takes it for writing, forward changes for reading, so every
	// admitted change falls in one segment of constant Rate and Burst.
	budget     sync.RWMutex
	segs       []stressSeg // protected by budget
	unsureSeen int         // protected by budget
	tallyMu    sync.Mutex
	tally      stressTally // protected by tallyMu
	timeline   []stressEvent
}

type stressSeg struct {
	start    time.Time
	cfg      control.Config
	admitted int // forward batches applied while cfg was in force
}

// stressTally counts outcomes as the callers saw them.
type stressTally struct {
	requests, applied, changes, noops, dryRuns, rejected  uint64
	rateLimited, applyFailed, clamped, rollbacks, nothing uint64
}

// stressEvent is an applied batch (forward or rollback) and the time it was
// applied at, for replaying the knobs' MinInterval in batch order.
type stressEvent struct {
	batch    uint64
	now      time.Time
	knobs    []string
	rollback bool
}

const (
	stressKnobs    = 6
	stressInterval = 5 * time.Millisecond // MinInterval of s2
)

var stressBase = time.Unix(1_700_000_000, 0)

// stressConfigs are the budgets the test swaps between; Rate 0 switches the
// budget off, and switching it on again starts the bucket full.
var stressConfigs = []control.Config{
	{Rate: 20, Burst: 2, AuditSize: 64},
	{Rate: 100, Burst: 5, AuditSize: 16},
	{AuditSize: 8},
	{Rate: 500, Burst: 1},
	{Rate: 5, Burst: 3, AuditSize: 32},
	{Rate: 200, Burst: 20, AuditSize: 64},
	{Rate: 2, Burst: 1}, // a lowered Burst caps what the bucket holds
}

func newStressRig(t *testing.T) *stressRig {
	s := &stressRig{}
	reg, err := control.New(stressConfigs[0])
	require.NoError(t, err)
	s.reg, s.h = reg, reg.Handler()
	s.segs = []stressSeg{{start: stressBase, cfg: stressConfigs[0]}}
	for i := range stressKnobs {
		k := control.IntKnob{Name: fmt.Sprintf("s%d", i), Min: 0, Max: 50, Apply: s.applyFunc(i)}
		if i == 2 {
			k.MinInterval = stressInterval
		}
		require.NoError(t, reg.RegisterInt(k))
	}
	return s
}

// applyFunc is knob i's component: it refuses 7, panics on 11 before and on
// 17 and 19 after taking the value (s0, s1 and s4); s3 also refuses every fifth
// call whatever the value, so that undos fail too.
func (s *stressRig) applyFunc(i int) func(int64) error {
	return func(v int64) error {
		if i == 3 && s.calls.Add(1)%5 == 0 {
			return errors.New("flaky")
		}
		if i == 0 || i == 1 || i == 4 {
			switch v {
			case 7:
				return fmt.Errorf("refused %d", v)
			case 11:
				panic(fmt.Sprintf("s%d: panic before %d", i, v))
			case 17, 19:
				s.comp[i].Store(v)
				panic(fmt.Sprintf("s%d: panic after %d", i, v))
			}
		}
		s.comp[i].Store(v)
		return nil
	}
}

// now advances the clock a millisecond and returns it, sometimes minus up to
// 3 ms (a caller that read the clock before another took the lock).
func (s *stressRig) now(rng *rand.Rand) time.Time {
	t := stressBase.Add(time.Duration(s.clock.Add(int64(time.Millisecond))))
	if rng.IntN(8) == 0 {
		t = t.Add(-time.Duration(rng.Int64N(int64(3 * time.Millisecond))))
	}
	return t
}

// TestStressConfigSwaps runs changes on explicit time (batches, dry runs,
// refusals, panics recovered by the caller, rollbacks) against Config swaps
// and readers (Knobs, Audit, Stats, GET over HTTP). Readers check that the
// paired knobs s0 and s1 never differ and that the audit log's seq increases
// and its times never decrease. At the end: every knob not Unsure agrees with
// its component; the budget admitted no more than Burst + Rate x time in any
// segment of constant Config; s2 changed no sooner than its MinInterval; each
// rollback set the exact values its batch had replaced; the audit log chains;
// the Stats counters equal the outcomes the callers saw and add up to
// Requests.
func TestStressConfigSwaps(t *testing.T) {
	s := newStressRig(t)
	const writers, ops = 4, 800
	var wg sync.WaitGroup
	var done atomic.Bool
	for r := range 2 {
		wg.Go(func() { s.read(t, r, &done) })
	}
	var ww sync.WaitGroup
	for w := range writers {
		ww.Go(func() { s.write(t, w, ops) })
	}
	ww.Wait()
	done.Store(true)
	wg.Wait()
	if t.Failed() {
		return
	}
	s.checkEnd(t)
}

// write runs ops random requests; writer 0 also swaps the budget and writer
// 1 the audit size.
func (s *stressRig) write(t *testing.T, w, ops int) {
	rng := rand.New(rand.NewPCG(uint64(w), 10))
	for i := range ops {
		switch {
		case w == 0 && i%41 == 40:
			s.swapBudget(t, rng, i)
			continue
		case w == 1 && i%29 == 28:
			s.swapAuditSize(t, rng)
			continue
		case w == 2 && i%7 == 6:
			s.quiet(t)
			continue
		}
		if rng.IntN(10) == 0 {
			s.rollback(rng, w)
			continue
		}
		req := control.Request{Who: fmt.Sprintf("w%d", w), Why: fmt.Sprint(i), DryRun: rng.IntN(8) == 0}
		v := control.Int(rng.Int64N(60)) // 51..59 are clamped to 50
		switch n := rng.IntN(20); {
		case n == 0:
			req.Changes = []control.Change{{Knob: "nope", Value: v}}
		case n == 1:
			req.Strict, req.Changes = true, []control.Change{{Knob: "s4", Value: control.Int(99)}}
		case n < 9:
			req.Changes = []control.Change{{Knob: "s0", Value: v}, {Knob: "s1", Value: v}}
		default:
			k := fmt.Sprintf("s%d", 2+rng.IntN(stressKnobs-2))
			req.Changes = []control.Change{{Knob: k, Value: v}, {Knob: "s5", Value: control.Int(rng.Int64N(50))}}
			if rng.IntN(2) == 0 {
				req.Changes = req.Changes[:1]
			}
		}
		s.apply(rng, req)
	}
}

// swapBudget installs the next Config of stressConfigs with nothing applying,
// and first tries an invalid one, which must change nothing. With no change
// in flight, it checks that every knob not Unsure agrees with its component.
func (s *stressRig) swapBudget(t *testing.T, rng *rand.Rand, i int) {
	s.budget.Lock()
	defer s.budget.Unlock()
	s.checkComponents(t)
	// An idle spell: the bucket fills up to the old Burst before the swap.
	s.clock.Add(int64(100 * time.Millisecond))
	now := s.now(rng)
	assert.ErrorIs(t, s.reg.SetConfigAt(now, control.Config{Burst: 3}), control.ErrInvalidConfig)
	cfg := stressConfigs[(i/41+1)%len(stressConfigs)]
	assert.NoError(t, s.reg.SetConfigAt(now, cfg))
	s.segs = append(s.segs, stressSeg{start: now, cfg: cfg})
}

// quiet checks the components with no change in flight.
func (s *stressRig) quiet(t *testing.T) {
	s.budget.Lock()
	defer s.budget.Unlock()
	s.checkComponents(t)
}

// swapAuditSize changes only the audit size, concurrently with changes:
// Rate and Burst stay those of the current segment.
func (s *stressRig) swapAuditSize(t *testing.T, rng *rand.Rand) {
	s.budget.RLock()
	defer s.budget.RUnlock()
	cfg := s.segs[len(s.segs)-1].cfg
	cfg.AuditSize = []int{0, 4, 8, 128}[rng.IntN(4)]
	assert.NoError(t, s.reg.SetConfigAt(s.now(rng), cfg))
}

// call runs f and turns a panic into an error that says so.
func call(f func() (control.Result, error)) (res control.Result, err error, panicked bool) {
	defer func() {
		if v := recover(); v != nil {
			err, panicked = fmt.Errorf("panic: %v", v), true
		}
	}()
	res, err = f()
	return res, err, false
}

func (s *stressRig) apply(rng *rand.Rand, req control.Request) {
	s.budget.RLock()
	defer s.budget.RUnlock()
	now := s.now(rng)
	res, err, panicked := call(func() (control.Result, error) { return s.reg.ApplyAt(now, req) })
	s.tallyMu.Lock()
	defer s.tallyMu.Unlock()
	n := &s.tally
	n.requests++
	var ae *control.ApplyError
	switch {
	case panicked || errors.As(err, &ae):
		n.applyFailed++
	case errors.Is(err, control.ErrRateLimited):
		n.rateLimited++
	case err != nil:
		n.rejected++
	case res.Batch == 0 && !slices.ContainsFunc(res.Changes, func(o control.Outcome) bool { return !o.Unchanged }):
		n.noops++
	case req.DryRun:
		n.dryRuns++
	default:
		n.applied++
		s.segs[len(s.segs)-1].admitted++ // segs is stable: budget is read-locked
		ev := stressEvent{batch: res.Batch, now: now}
		for _, o := range res.Changes {
			if !o.Unchanged {
				n.changes++
				ev.knobs = append(ev.knobs, o.Knob)
				if o.Clamped {
					n.clamped++
				}
			}
		}
		s.timeline = append(s.timeline, ev)
	}
}

// rollback spends no budget but takes the budget lock too, so that
// swapBudget sees no change in flight.
func (s *stressRig) rollback(rng *rand.Rand, w int) {
	s.budget.RLock()
	defer s.budget.RUnlock()
	now := s.now(rng)
	res, err, panicked := call(func() (control.Result, error) {
		return s.reg.RollbackAt(now, fmt.Sprintf("w%d", w), "stress")
	})
	s.tallyMu.Lock()
	defer s.tallyMu.Unlock()
	n := &s.tally
	n.requests++
	var ae *control.ApplyError
	switch {
	case panicked || errors.As(err, &ae):
		n.applyFailed++
	case errors.Is(err, control.ErrNothingToRollback):
		n.nothing++
		n.rejected++
	case err != nil:
		panic(fmt.Sprintf("rollback: unexpected error %v", err))
	default:
		n.applied++
		n.rollbacks++
		n.changes += uint64(len(res.Changes))
		ev := stressEvent{batch: res.Batch, now: now, rollback: true}
		for _, o := range res.Changes {
			ev.knobs = append(ev.knobs, o.Knob)
		}
		s.timeline = append(s.timeline, ev)
	}
}

// read checks snapshots until the writers are done (at most 2000 rounds).
func (s *stressRig) read(t *testing.T, r int, done *atomic.Bool) {
	var last control.Stats
	for i := 0; i < 2000 && !done.Load(); i++ {
		var knobs []control.Info
		var log []control.Entry
		switch (i + r) % 4 {
		case 0:
			knobs, log = s.reg.Knobs(), s.reg.Audit()
		case 1:
			// Info does not decode (Kind encodes as text only): take what
			// the check needs.
			var wire []struct {
				Name  string        `json:"name"`
				Value control.Value `json:"value"`
			}
			if !getJSON(t, s.h, "/knobs", &wire) || !getJSON(t, s.h, "/audit", &log) {
				return
			}
			for _, k := range wire {
				knobs = append(knobs, control.Info{Name: k.Name, Value: k.Value})
			}
		case 2:
			st := s.reg.Stats()
			if !assert.GreaterOrEqual(t, st.Requests, last.Requests) ||
				!assert.GreaterOrEqual(t, st.Changes, last.Changes) ||
				!assert.GreaterOrEqual(t, st.Evicted, last.Evicted) {
				return
			}
			last = st
		case 3:
			var st control.Stats
			if !getJSON(t, s.h, "/stats", &st) || !assert.GreaterOrEqual(t, st.Requests, last.Requests) {
				return
			}
		}
		if !checkSnapshot(t, knobs, log) {
			return
		}
	}
}

// checkSnapshot checks what a reader saw: s0 and s1 equal, the log's seq
// increasing and its times not decreasing.
func checkSnapshot(t *testing.T, knobs []control.Info, log []control.Entry) bool {
	var s0, s1 control.Value
	for _, in := range knobs {
		switch in.Name {
		case "s0":
			s0 = in.Value
		case "s1":
			s1 = in.Value
		}
	}
	if !assert.Equal(t, s0, s1, "a reader saw s0 and s1 apart") {
		return false
	}
	for i := 1; i < len(log); i++ {
		if !assert.Greater(t, log[i].Seq, log[i-1].Seq, "seq increases") ||
			!assert.False(t, log[i].Time.Before(log[i-1].Time), "entry %d is stamped before %d", log[i].Seq, log[i-1].Seq) {
			return false
		}
	}
	return true
}

// getJSON serves GET path and decodes the answer into v; it reports
// whether both worked.
func getJSON(t *testing.T, h http.Handler, path string, v any) bool {
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, path, nil))
	return assert.Equal(t, http.StatusOK, rec.Code, "GET %s: %s", path, rec.Body) &&
		assert.NoError(t, json.Unmarshal(rec.Body.Bytes(), v), "GET %s", path)
}

// checkComponents checks, with no change in flight, that every knob not
// Unsure holds its component's value, and counts the Unsure ones.
func (s *stressRig) checkComponents(t *testing.T) {
	for i, in := range s.reg.Knobs() {
		if in.Unsure {
			s.unsureSeen++
			continue
		}
		assert.Equal(t, in.Value.Int(), s.comp[i].Load(), "%s: registry and component agree", in.Name)
	}
}

func (s *stressRig) checkEnd(t *testing.T) {
	s.checkComponents(t)
	t.Logf("knobs seen Unsure at quiet points: %d", s.unsureSeen)
	s.checkChain(t)
	s.checkRollbacks(t)
	s.checkBudget(t)
	s.checkMinInterval(t)
	s.checkStats(t)
}

// checkChain checks that each entry's Old is the New of the knob's entry
// before it and that the last entry of each knob holds its value. (An entry
// may keep a value, Old == New: the change that clears Unsure.)
func (s *stressRig) checkChain(t *testing.T) {
	last := map[string]control.Value{}
	for _, e := range s.reg.Audit() {
		if prev, ok := last[e.Knob]; ok {
			require.Equal(t, prev, e.Old, "entry %d of %s chains", e.Seq, e.Knob)
		}
		last[e.Knob] = e.New
	}
	for name, v := range last {
		got, err := s.reg.Get(name)
		require.NoError(t, err)
		assert.Equal(t, v, got, "knob %s holds its last audit entry's value", name)
	}
}

// checkRollbacks checks each rollback in the log whose batch is still there
// too: it set exactly the knobs of that batch to their values before it.
func (s *stressRig) checkRollbacks(t *testing.T) {
	batches := map[uint64][]control.Entry{}
	log := s.reg.Audit()
	for _, e := range log {
		batches[e.Batch] = append(batches[e.Batch], e)
	}
	checked := 0
	for b, es := range batches {
		target, ok := batches[es[0].RollbackOf]
		// The log's first batch may have lost its first entries.
		if es[0].RollbackOf == 0 || !ok || target[0].Batch == log[0].Batch {
			continue
		}
		want := map[string]control.Value{}
		for _, e := range target {
			want[e.Knob] = e.Old
		}
		got := map[string]control.Value{}
		for _, e := range es {
			got[e.Knob] = e.New
		}
		assert.Equal(t, want, got, "rollback batch %d of batch %d", b, es[0].RollbackOf)
		checked++
	}
	t.Logf("rollbacks checked against their batch: %d", checked)
}

// checkBudget checks each segment of constant Rate and Burst: it started
// with at most Burst tokens and earned Rate per second of the clock.
func (s *stressRig) checkBudget(t *testing.T) {
	end := stressBase.Add(time.Duration(s.clock.Load()))
	for i, sg := range s.segs {
		if sg.cfg.Rate == 0 {
			continue
		}
		stop := end
		if i+1 < len(s.segs) {
			stop = s.segs[i+1].start
		}
		burst := float64(max(sg.cfg.Burst, 1))
		limit := burst + sg.cfg.Rate*stop.Sub(sg.start).Seconds() + 1e-9
		assert.LessOrEqual(t, float64(sg.admitted), limit, "segment %d (%+v) admitted too many", i, sg.cfg)
		t.Logf("segment %d: rate %v burst %d: admitted %d of at most %.1f", i, sg.cfg.Rate, sg.cfg.Burst, sg.admitted, limit)
	}
	t.Logf("budget segments: %d", len(s.segs))
}

// checkMinInterval replays the applied batches in order: no forward change
// of s2 came sooner than its MinInterval after the latest change of s2.
func (s *stressRig) checkMinInterval(t *testing.T) {
	slices.SortFunc(s.timeline, func(a, b stressEvent) int { return int(a.batch) - int(b.batch) })
	var last time.Time
	for _, ev := range s.timeline {
		if !slices.Contains(ev.knobs, "s2") {
			continue
		}
		if !ev.rollback && !last.IsZero() {
			assert.GreaterOrEqual(t, ev.now.Sub(last), stressInterval, "batch %d changed s2 too soon", ev.batch)
		}
		if ev.now.After(last) {
			last = ev.now
		}
	}
}

func (s *stressRig) checkStats(t *testing.T) {
	n, st := s.tally, s.reg.Stats()
	want := control.Stats{Knobs: stressKnobs, AuditLen: st.AuditLen,
		Requests: n.requests, Applied: n.applied, Changes: n.changes, NoOps: n.noops, DryRuns: n.dryRuns,
		Rejected: n.rejected, RateLimited: n.rateLimited, ApplyFailed: n.applyFailed, Clamped: n.clamped,
		Rollbacks: n.rollbacks, Evicted: st.Evicted}
	assert.Equal(t, want, st)
	assert.Equal(t, st.Requests, st.Applied+st.NoOps+st.DryRuns+st.Rejected+st.RateLimited+st.ApplyFailed,
		"every request is counted once (a rollback with nothing to undo as Rejected)")
	log := s.reg.Audit()
	if assert.NotEmpty(t, log) {
		assert.Equal(t, log[len(log)-1].Seq, st.Evicted+uint64(st.AuditLen), "every entry is held or evicted")
		assert.Equal(t, st.Changes, log[len(log)-1].Seq, "one entry per change")
	}
	for _, f := range []uint64{n.applied, n.noops, n.dryRuns, n.rejected, n.rateLimited, n.applyFailed, n.rollbacks, n.nothing} {
		assert.Positive(t, f, "every outcome happens: %+v", n)
	}
	t.Logf("tally: %+v", n)
}
