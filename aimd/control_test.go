package aimd_test

import (
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/aimd"
)

var params = aimd.Params{Target: 0.9, Increase: 1, Gain: 0.5, Decrease: 0.7, Min: 1, Max: 1000}

func TestUpdate(t *testing.T) {
	tests := []struct {
		name  string
		limit float64
		load  float64
		p     aimd.Params
		want  float64
	}{
		{name: "at target adds Increase", limit: 100, load: 0.9, p: params, want: 101},
		{name: "headroom adds more", limit: 100, load: 0.45, p: params, want: 100 + 1 + 0.5*100*0.5},
		{name: "no gain is textbook AIMD", limit: 100, load: 0.1, p: aimd.Params{Target: 0.9, Increase: 2, Decrease: 0.5, Min: 1, Max: 1000}, want: 102},
		{name: "small excess backs off a little", limit: 100, load: 1.0, p: params, want: 90},
		{name: "large excess backs off at most Decrease", limit: 100, load: 5, p: params, want: 70},
		{name: "infinite load", limit: 100, load: math.Inf(1), p: params, want: 70},
		{name: "NaN load keeps the limit", limit: 100, load: math.NaN(), p: params, want: 100},
		{name: "negative load keeps the limit", limit: 100, load: -1, p: params, want: 100},
		{name: "backoff corrects a fraction of the excess", limit: 100, load: 1.0, p: proportional, want: 100 * (1 - 0.3*0.1/1.0)},
		{name: "backoff of a large excess", limit: 100, load: 5, p: aimd.Params{Target: 0.9, Decrease: 0.7, Backoff: 0.3, Min: 1, Max: 1000}, want: 100 * (1 - 0.3*4.1/5)},
		{name: "backoff is still bounded by Decrease", limit: 100, load: 5, p: withBackoff(proportional, 1), want: 90},
		{name: "backoff above 1 means 1", limit: 100, load: 1.0, p: withBackoff(params, 2), want: 90},
		{name: "clamped to Max", limit: 999.5, load: 0, p: params, want: 1000},
		{name: "clamped to Min", limit: 1, load: 2, p: params, want: 1},
		{name: "NaN limit restarts at Min", limit: math.NaN(), load: math.NaN(), p: params, want: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.InDelta(t, tt.want, aimd.Update(tt.limit, tt.load, tt.p), 1e-9)
		})
	}
}

// plant is a CPU-bound server on explicit time: with saturating demand the work
// in flight equals the concurrency limit, and the utilization measured over a
// period is that of the limit during the previous period (one step of lag),
// capped at 1. offered bounds the demand (0: unbounded) and hog adds CPU that is
// not the limiter's work (an overload from outside).
type plant struct {
	capacity float64 // concurrency at 100% CPU
	offered  float64
	hog      float64
}

func (p plant) load(limit float64) float64 {
	work := limit
	if p.offered > 0 {
		work = min(limit, p.offered)
	}
	return min(1, work/p.capacity+p.hog)
}

// run steps the pure update every period for d, starting from limit, and returns
// the limits after each step.
func (p plant) run(limit float64, d, period time.Duration) []float64 {
	return p.runWith(params, limit, d, period)
}

// runWith is run with the given parameters, escalating the Backoff over runs
// of steps above the target as a Limiter does.
func (p plant) runWith(ps aimd.Params, limit float64, d, period time.Duration) []float64 {
	var out []float64
	prev := limit
	above := 0
	for range int(d / period) {
		load := p.load(prev)
		prev = limit
		limit, above = step(limit, load, ps, above)
		out = append(out, limit)
	}
	return out
}

// step is one step of a Limiter's loop: Update with the Backoff escalated
// over the run of steps above the target.
func step(limit, load float64, p aimd.Params, above int) (float64, int) {
	if load > p.Target {
		above++
	} else {
		above = 0
	}
	p.Backoff = aimd.EscalatedBackoff(p.Backoff, above)
	return aimd.Update(limit, load, p), above
}

// settle returns the control time of the step from which every limit stays
// within tol of want (limits[i] is the one the step at (i+1) periods set; 0
// when every limit given is within), and the largest limit seen.
func settle(limits []float64, want, tol float64, period time.Duration) (time.Duration, float64) {
	last := -1
	peak := 0.0
	for i, l := range limits {
		peak = max(peak, l)
		if math.Abs(l-want) > tol*want {
			last = i
		}
	}
	if last < 0 {
		return 0, peak
	}
	// the step after the last limit out of tolerance, at (last+2) periods
	return time.Duration(last+2) * period, peak
}

// TestSettleAfterCapacityDoubles: the target is a limit within +-10% of
// the new equilibrium in at most 5 s of control time, overshooting it by at most
// 10%. The constant Increase (1) must be small against the equilibrium limit for
// the sawtooth to stay within 10%: below an equilibrium of about 45 it needs a
// smaller Increase.
func TestSettleAfterCapacityDoubles(t *testing.T) {
	const period = 100 * time.Millisecond
	for _, capacity := range []float64{50, 100, 400} {
		before := plant{capacity: capacity}.run(params.Min, 20*time.Second, period)
		after := plant{capacity: 2 * capacity}.run(before[len(before)-1], 20*time.Second, period)
		assertSettles(t, "Update", capacity, before, after, period)
	}
}

// assertSettles checks the targets on the limits of a loop steady
// at capacity (before) whose capacity then doubled (after): steady before,
// within +-10% of the new equilibrium in at most 5 s, at most 10% over it.
func assertSettles(t *testing.T, loop string, capacity float64, before, after []float64, period time.Duration) {
	t.Helper()
	settled, _ := settle(before[len(before)/2:], 0.9*capacity, 0.1, period)
	require.Zero(t, settled, "%s, capacity %v: steady before the change", loop, capacity)
	want := 0.9 * 2 * capacity
	settled, peak := settle(after, want, 0.1, period)
	assert.LessOrEqual(t, settled, 5*time.Second, "%s, capacity %v -> %v: settle time", loop, capacity, 2*capacity)
	assert.LessOrEqual(t, peak, 1.1*want, "%s, capacity %v -> %v: overshoot", loop, capacity, 2*capacity)
	t.Logf("%s, capacity %v -> %v: settled within 10%% after %v, peak %.1f (%.1f%% over %.0f)",
		loop, capacity, 2*capacity, settled, peak, 100*(peak/want-1), want)
}

// TestRecoveryAfterOverload: an outside CPU hog drives the limit down to Min;
// once the hog stops, full admission (a limit covering the offered demand) must
// return within 2 s.
func TestRecoveryAfterOverload(t *testing.T) {
	const period = 100 * time.Millisecond
	for _, offered := range []float64{30, 60, 85} {
		p := plant{capacity: 100, offered: offered, hog: 0.95}
		during := p.run(float64(params.Max), 10*time.Second, period)
		p.hog = 0
		after := p.run(during[len(during)-1], 5*time.Second, period)
		assertRecovers(t, "Update", offered, during, after, period)
	}
}

// assertRecovers checks the target on the limits of a loop driven to
// Min by an outside hog (during) that then stopped (after): full admission
// (a limit covering the offered demand) within 2 s.
func assertRecovers(t *testing.T, loop string, offered float64, during, after []float64, period time.Duration) {
	t.Helper()
	require.Equal(t, params.Min, during[len(during)-1], "%s: overload drives the limit to Min", loop)
	back := -1
	for i, l := range after {
		if l >= offered {
			back = i + 1
			break
		}
	}
	require.Positive(t, back, "%s, offered %v: never fully admitted again", loop, offered)
	took := time.Duration(back) * period
	assert.LessOrEqual(t, took, 2*time.Second, "%s, offered %v", loop, offered)
	t.Logf("%s, offered %v: full admission after %v", loop, offered, took)
}

// proportional is the configuration the overload example's real mode uses: a
// small constant Increase, and a fraction of the error corrected either way
// (Gain 0.4 below the target, Backoff 0.3 above it, escalated over runs).
var proportional = aimd.Params{Target: 0.9, Increase: 0.1, Gain: 0.4, Decrease: 0.9, Backoff: 0.3, Min: 1, Max: 1000}

func TestEscalatedBackoff(t *testing.T) {
	for _, tt := range []struct {
		base float64
		run  int
		want float64
	}{
		{0.3, 1, 0.3}, {0.3, 2, 0.3}, {0.3, 3, 0.6}, {0.3, 4, 1}, {0.3, 10, 1}, {0.3, 0, 0.3},
		{1, 1, 1}, {0, 1, 1}, {0, 5, 1}, {-1, 2, 1}, {2, 1, 1}, {math.NaN(), 1, 1},
	} {
		assert.InDelta(t, tt.want, aimd.EscalatedBackoff(tt.base, tt.run), 1e-12, "base %v run %d", tt.base, tt.run)
	}
}

func withBackoff(p aimd.Params, b float64) aimd.Params {
	p.Backoff = b
	return p
}

// TestProportionalMeetsTargets: the proportional configuration keeps the
// issue's targets on the same lagged plant: settled within 10% in at most 5 s
// after capacity doubles with at most 10% overshoot, and full admission within
// 2 s after an outside overload ends.
func TestProportionalMeetsTargets(t *testing.T) {
	const period = 100 * time.Millisecond
	for _, capacity := range []float64{50, 100, 400} {
		before := plant{capacity: capacity}.runWith(proportional, proportional.Min, 20*time.Second, period)
		settled, _ := settle(before[len(before)/2:], 0.9*capacity, 0.1, period)
		require.Zero(t, settled, "capacity %v: steady before the change", capacity)
		after := plant{capacity: 2 * capacity}.runWith(proportional, before[len(before)-1], 20*time.Second, period)
		want := 0.9 * 2 * capacity
		settled, peak := settle(after, want, 0.1, period)
		assert.LessOrEqual(t, settled, 5*time.Second, "capacity %v -> %v: settle time", capacity, 2*capacity)
		assert.LessOrEqual(t, peak, 1.1*want, "capacity %v -> %v: overshoot", capacity, 2*capacity)
		t.Logf("capacity %v -> %v: settled within 10%% after %v, peak %.1f (%.1f%% over %.0f)",
			capacity, 2*capacity, settled, peak, 100*(peak/want-1), want)
	}
	for _, offered := range []float64{30, 60, 85} {
		p := plant{capacity: 100, offered: offered, hog: 0.95}
		during := p.runWith(proportional, proportional.Max, 10*time.Second, period)
		require.Equal(t, proportional.Min, during[len(during)-1], "overload drives the limit to Min")
		p.hog = 0
		after := p.runWith(proportional, during[len(during)-1], 5*time.Second, period)
		back := slices.IndexFunc(after, func(l float64) bool { return l >= offered })
		require.GreaterOrEqual(t, back, 0, "offered %v: never fully admitted again", offered)
		took := time.Duration(back+1) * period
		assert.LessOrEqual(t, took, 2*time.Second, "offered %v", offered)
		t.Logf("offered %v: full admission after %v", offered, took)
	}
}

// noisyPlant is a CPU-bound server whose utilization is proportional to the
// concurrency limit (1% of the CPU per unit at capacity 100), read every period
// with Gaussian noise of sd sigma: what a 100 ms process CPU sample shows.
// It returns the fraction of periods whose reading is within +-3 points of the
// target, and the lowest and highest limits after a settling second.
func noisyPlant(p aimd.Params, capacity, sigma float64, periods int, seed uint64) (within, lo, hi float64) {
	rng := rand.New(rand.NewPCG(seed, 1))
	limit := p.Target * capacity
	lo, hi = math.Inf(1), 0
	n, above := 0, 0
	for i := range periods {
		load := min(1, limit/capacity) + sigma*rng.NormFloat64()
		if i >= 10 {
			if math.Abs(load-p.Target) <= 0.03 {
				n++
			}
			lo, hi = min(lo, limit), max(hi, limit)
		}
		limit, above = step(limit, load, p, above)
	}
	return float64(n) / float64(periods-10), lo, hi
}

// TestNoisyPlant is the closed loop against a noisy CPU signal (sd 2 points,
// as the real mode's 100 ms samples show on an idle machine): the fraction of
// periods within +-3 points of a 90% target, and how far the limit swings.
// The noise alone puts about 13% of the readings outside +-3 points (1.5
// sd); the full correction (Backoff 1) turns each high reading into a real
// cut of the limit and then climbs back one Increase per period, a sawtooth
// that adds to the noise. The proportional loop corrects 30% of each error
// (escalated over runs of high readings) and holds more periods, and with
// either loop a load of 75% of the capacity (83% of the equilibrium limit, the normal tenants of the
// overload experiment) always fits under it.
func TestNoisyPlant(t *testing.T) {
	const (
		capacity = 100.0
		sigma    = 0.02
		periods  = 3000 // 5 minutes of control time
	)
	textbook := aimd.Params{Target: 0.9, Increase: 1, Gain: 0.2, Decrease: 0.9, Min: 1, Max: 256} // the real mode's former loop
	prop := proportional
	var wOld, wNew float64
	for seed := range uint64(3) {
		w, lo, hi := noisyPlant(textbook, capacity, sigma, periods, seed)
		wOld += w / 3
		t.Logf("seed %d, full correction: %.1f%% of periods within +-3, limit %.1f..%.1f", seed, 100*w, lo, hi)
		w, lo, hi = noisyPlant(prop, capacity, sigma, periods, seed)
		wNew += w / 3
		t.Logf("seed %d, proportional:    %.1f%% of periods within +-3, limit %.1f..%.1f", seed, 100*w, lo, hi)
		assert.GreaterOrEqual(t, w, 0.78, "seed %d", seed)
		assert.GreaterOrEqual(t, lo, 0.9*0.9*capacity, "seed %d: the limit dips more than 10%%", seed)
		assert.Greater(t, lo, 0.75*capacity, "seed %d: a 75%% load would not fit", seed)
		assert.LessOrEqual(t, hi, 1.1*0.9*capacity, "seed %d: the limit overshoots more than 10%%", seed)
	}
	assert.Greater(t, wNew, wOld+0.05, "the proportional loop holds the target in more periods")
}

// TestLimiterEscalatesBackoff: a Limiter with Backoff 0.3 on a saturated
// signal (1.0 against 0.9) cuts 3% twice, then 6%, then the full correction
// (10%), and a reading at the target resets the run.
func TestLimiterEscalatesBackoff(t *testing.T) {
	load := 1.0
	l, err := aimd.New(aimd.Config{Manual: true, Target: 0.9, Initial: 100, Max: 1000, Backoff: 0.3,
		Decrease: 0.7, MemoryLimit: -1, Signal: aimd.SignalFunc(func(time.Time) (float64, error) { return load, nil })})
	require.NoError(t, err)
	want := 100.0
	now := time.Unix(0, 0)
	for i, f := range []float64{0.97, 0.97, 0.94, 0.9, 0.9} {
		require.NoError(t, l.Tick(now.Add(time.Duration(i)*time.Second)))
		want *= f
		assert.Equal(t, int(want), l.Limit(), "step %d", i+1)
	}
	load = 0.9
	require.NoError(t, l.Tick(now.Add(10*time.Second)))
	load = 1.0
	require.NoError(t, l.Tick(now.Add(11*time.Second)))
	want = (want + 1) * 0.97
	assert.Equal(t, int(want), l.Limit(), "after a reading at the target the run starts again")
}

func TestMaxOf(t *testing.T) {
	sig := func(v float64, err error) aimd.Signal {
		return aimd.SignalFunc(func(time.Time) (float64, error) { return v, err })
	}
	boom := errors.New("boom")
	for _, tt := range []struct {
		name    string
		m       aimd.MaxOf
		want    float64
		wantErr bool
	}{
		{"the larger ratio", aimd.MaxOf{{sig(0.45, nil), 0.9}, {sig(0.03, nil), 0.02}}, 1.5, false},
		{"cpu dominates", aimd.MaxOf{{sig(0.99, nil), 0.9}, {sig(0.001, nil), 0.02}}, 1.1, false},
		{"NaN left out", aimd.MaxOf{{sig(math.NaN(), nil), 0.9}, {sig(0.01, nil), 0.02}}, 0.5, false},
		{"all NaN", aimd.MaxOf{{sig(math.NaN(), nil), 0.9}}, math.NaN(), false},
		{"error returned with the others' maximum", aimd.MaxOf{{sig(0, boom), 0.9}, {sig(0.01, nil), 0.02}}, 0.5, true},
		{"non-positive target left out", aimd.MaxOf{{sig(5, nil), 0}, {sig(0.01, nil), 0.02}}, 0.5, false},
		{"empty", nil, math.NaN(), false},
	} {
		v, err := tt.m.Sample(time.Time{})
		if tt.wantErr {
			assert.ErrorIs(t, err, boom, tt.name)
		} else {
			assert.NoError(t, err, tt.name)
		}
		if math.IsNaN(tt.want) {
			assert.True(t, math.IsNaN(v), tt.name)
			continue
		}
		assert.InDelta(t, tt.want, v, 1e-12, tt.name)
	}
}

// TestSchedLatencyLive reads this process's scheduler latency: NaN first, then
// a sane non-negative number of seconds once goroutines have been scheduled.
func TestSchedLatencyLive(t *testing.T) {
	var l aimd.SchedLatency
	v, err := l.Sample(time.Now())
	require.NoError(t, err)
	assert.True(t, math.IsNaN(v), "no previous sample")
	done := make(chan struct{})
	for range 100 {
		go func() { done <- struct{}{} }()
	}
	for range 100 {
		<-done
	}
	v, err = l.Sample(time.Now())
	require.NoError(t, err)
	if !math.IsNaN(v) {
		assert.GreaterOrEqual(t, v, 0.0)
		assert.Less(t, v, 60.0)
	}
}
