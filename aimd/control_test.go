package aimd_test

import (
	"math"
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
	var out []float64
	prev := limit
	for range int(d / period) {
		load := p.load(prev)
		prev = limit
		limit = aimd.Update(limit, load, params)
		out = append(out, limit)
	}
	return out
}

// settle returns the control time after which every limit stays within tol of
// want, and the largest limit seen.
func settle(limits []float64, want, tol float64, period time.Duration) (time.Duration, float64) {
	last := -1
	peak := 0.0
	for i, l := range limits {
		peak = max(peak, l)
		if math.Abs(l-want) > tol*want {
			last = i
		}
	}
	return time.Duration(last+1) * period, peak
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
		settled, _ := settle(before[len(before)/2:], 0.9*capacity, 0.1, period)
		require.Zero(t, settled, "capacity %v: steady before the change", capacity)

		after := plant{capacity: 2 * capacity}.run(before[len(before)-1], 20*time.Second, period)
		want := 0.9 * 2 * capacity
		settled, peak := settle(after, want, 0.1, period)
		assert.LessOrEqual(t, settled, 5*time.Second, "capacity %v -> %v: settle time", capacity, 2*capacity)
		assert.LessOrEqual(t, peak, 1.1*want, "capacity %v -> %v: overshoot", capacity, 2*capacity)
		t.Logf("capacity %v -> %v: settled within 10%% after %v, peak %.1f (%.1f%% over %.0f)",
			capacity, 2*capacity, settled, peak, 100*(peak/want-1), want)
	}
}

// TestRecoveryAfterOverload: an outside CPU hog drives the limit down to Min;
// once the hog stops, full admission (a limit covering the offered demand) must
// return within 2 s.
func TestRecoveryAfterOverload(t *testing.T) {
	const period = 100 * time.Millisecond
	for _, offered := range []float64{30, 60, 85} {
		p := plant{capacity: 100, offered: offered, hog: 0.95}
		during := p.run(float64(params.Max), 10*time.Second, period)
		require.Equal(t, params.Min, during[len(during)-1], "overload drives the limit to Min")
		p.hog = 0
		after := p.run(during[len(during)-1], 5*time.Second, period)
		back := -1
		for i, l := range after {
			if l >= offered {
				back = i + 1
				break
			}
		}
		require.Positive(t, back, "offered %v: never fully admitted again", offered)
		took := time.Duration(back) * period
		assert.LessOrEqual(t, took, 2*time.Second, "offered %v", offered)
		t.Logf("offered %v: full admission after %v", offered, took)
	}
}
