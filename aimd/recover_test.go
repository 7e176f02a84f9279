package aimd_test

import (
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/aimd"
)

func TestRecover(t *testing.T) {
	p := proportional // Target 0.9, Min 1, Max 1000
	type st = aimd.RecoverState
	for _, tt := range []struct {
		name              string
		limit, next, load float64
		s                 st
		wantNext          float64
		want              st
	}{
		{"a cut marks the limit before it", 90, 80, 1.2, st{}, 80, st{Mark: 90}},
		{"a further cut keeps the first mark", 80, 70, 1.2, st{Mark: 90}, 70, st{Mark: 90}},
		{"a low reading climbs by the proportional estimate", 60, 62, 0.8, st{Mark: 90}, 67.5, st{Mark: 90}},
		{"capped at the mark, then settling", 60, 62, 0.3, st{Mark: 90}, 90, st{Mark: 90, Settling: true}},
		{"settling caps Update's step, then clears", 90, 110, 0.4, st{Mark: 90, Settling: true}, 90, st{}},
		{"settling below the cap: Update's step", 90, 91, 0.88, st{Mark: 90, Settling: true}, 90, st{}},
		{"a cut while settling marks afresh", 90, 85, 1.0, st{Mark: 90, Settling: true}, 85, st{Mark: 90}},
		{"a reading near the target leaves Update's step", 60, 62, 0.88, st{Mark: 90}, 62, st{Mark: 90}},
		{"no mark: Update's step", 60, 62, 0.3, st{}, 62, st{}},
		{"Update's step past the mark is capped at it", 60, 95, 0.5, st{Mark: 90}, 90, st{Mark: 90, Settling: true}},
		{"a rounding short of the mark reaches it", 39.2487, 48, 0.392487, st{Mark: 90}, 90, st{Mark: 90, Settling: true}},
		{"a zero load goes to the mark", 60, 62, 0, st{Mark: 90}, 90, st{Mark: 90, Settling: true}},
		{"NaN load: unchanged", 60, 62, math.NaN(), st{Mark: 90}, 62, st{Mark: 90}},
		{"negative load: unchanged", 60, 62, -1, st{Mark: 90}, 62, st{Mark: 90}},
		{"NaN mark: cleared", 60, 62, 0.5, st{Mark: math.NaN()}, 62, st{}},
		{"a NaN mark on a cut: marked", 90, 80, 1.2, st{Mark: math.NaN()}, 80, st{Mark: 90}},
		{"a mark above Max: the limit is clamped", 600, 610, 0.1, st{Mark: 5000}, 1000, st{Mark: 5000, Settling: true}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			next, s := aimd.Recover(tt.limit, tt.next, tt.load, tt.s, p)
			assert.InDelta(t, tt.wantNext, next, 1e-9, "next")
			assert.Equal(t, tt.want, s, "state")
		})
	}
}

// runRecover is plant.runWith with fast recovery after each step, as a Limiter
// with Config.Recover does.
func (p plant) runRecover(ps aimd.Params, limit float64, rs aimd.RecoverState, d, period time.Duration) (out []float64, last aimd.RecoverState) {
	prev, above := limit, 0
	for range int(d / period) {
		load := p.load(prev)
		prev = limit
		var next float64
		next, above = step(limit, load, ps, above)
		limit, rs = aimd.Recover(limit, next, load, rs, ps)
		out = append(out, limit)
	}
	return out, rs
}

// TestRecoverAfterTransientHog: other processes take half the CPU for 300 ms
// or 1 s of a plant running at its target. With fast recovery the limit is
// back within 5% of its earlier value at most two periods after the hog
// leaves and never goes above it; the gradual climb alone takes longer.
func TestRecoverAfterTransientHog(t *testing.T) {
	const period = 100 * time.Millisecond
	p := plant{capacity: 100}
	steady := p.runWith(proportional, 90, 5*time.Second, period)
	start := steady[len(steady)-1]
	require.InDelta(t, 90, start, 5, "steady at the target before the hog")
	for _, hogFor := range []time.Duration{300 * time.Millisecond, time.Second} {
		fast, slow, peak := recoverAfterHog(t, start, hogFor, period)
		t.Logf("hog for %v: back within 5%% of %.1f after %d periods with fast recovery, %d without", hogFor, start, fast, slow)
		assert.LessOrEqual(t, fast, 2, "hog for %v: periods to recover with fast recovery", hogFor)
		assert.Less(t, fast, slow, "hog for %v: fast recovery is faster than the gradual climb", hogFor)
		assert.LessOrEqual(t, peak, 1.1*0.9*100, "hog for %v: no overshoot past the target's limit", hogFor)
	}
}

// recoverAfterHog runs the hog for hogFor from a limit of start, then
// returns the periods the limit takes to come back within 5% of start with and
// without fast recovery, and the highest limit with it.
func recoverAfterHog(t *testing.T, start float64, hogFor, period time.Duration) (fast, slow int, fastPeak float64) {
	back := func(recover bool) (steps int, peak float64) {
		p := plant{capacity: 100, hog: 0.5}
		var during, after []float64
		var rs aimd.RecoverState
		if recover {
			during, rs = p.runRecover(proportional, start, rs, hogFor, period)
		} else {
			during = p.runWith(proportional, start, hogFor, period)
		}
		require.Less(t, during[len(during)-1], 0.9*start, "the hog cuts the limit")
		p.hog = 0
		if recover {
			after, _ = p.runRecover(proportional, during[len(during)-1], rs, 5*time.Second, period)
		} else {
			after = p.runWith(proportional, during[len(during)-1], 5*time.Second, period)
		}
		steps = -1
		for i, l := range after {
			peak = max(peak, l)
			if steps < 0 && l >= 0.95*start {
				steps = i + 1
			}
		}
		require.Positive(t, steps, "recover=%v: never back", recover)
		return steps, peak
	}
	fast, fastPeak = back(true)
	slow, _ = back(false)
	return fast, slow, fastPeak
}

// TestRecoverLastingLoss: when the capacity lost stays lost (the hog never
// leaves), fast recovery does not pull the limit back up to the old mark: the
// loop settles at the new equilibrium as it does without it, with no swing.
func TestRecoverLastingLoss(t *testing.T) {
	const period = 100 * time.Millisecond
	p := plant{capacity: 100, hog: 0.4} // equilibrium: limit 50
	got, _ := p.runRecover(proportional, 90, aimd.RecoverState{}, 20*time.Second, period)
	want := p.runWith(proportional, 90, 20*time.Second, period)
	tail := got[len(got)/2:]
	lo, hi := tail[0], tail[0]
	for _, l := range tail {
		lo, hi = min(lo, l), max(hi, l)
	}
	t.Logf("lasting loss: limit %.1f..%.1f over the last 10 s (without fast recovery it ends at %.1f)", lo, hi, want[len(want)-1])
	assert.InDelta(t, 50, lo, 5, "settled near the new equilibrium")
	assert.InDelta(t, 50, hi, 5, "and stays there: no jump back toward the old mark")
}

// TestLimiterRecover: a Limiter with Recover set returns its limit and rate to
// their values before a cut at the first reading well below the target.
func TestLimiterRecover(t *testing.T) {
	load := 0.9
	l, err := aimd.New(aimd.Config{Manual: true, Target: 0.9, Initial: 100, Max: 1000, Increase: 0.1, Gain: 0.4,
		Backoff: 0.3, Decrease: 0.7, MaxRate: 1000, MinRate: 1, Recover: true, MemoryLimit: -1,
		Signal: aimd.SignalFunc(func(time.Time) (float64, error) { return load, nil })})
	require.NoError(t, err)
	now := time.Unix(0, 0)
	tick := func() {
		now = now.Add(100 * time.Millisecond)
		require.NoError(t, l.Tick(now))
	}
	tick()
	before, rateBefore := l.Limit(), l.Stats().Rate
	load = 1.5
	tick()
	tick()
	cut := l.Limit()
	require.Less(t, cut, before, "a high load cuts")
	require.Less(t, l.Stats().Rate, rateBefore, "and the rate")
	load = 0.3
	tick()
	assert.Equal(t, before, l.Limit(), "a low reading brings the limit back to its value before the cut")
	assert.InDelta(t, rateBefore, l.Stats().Rate, 1e-9, "and the rate")

	require.NoError(t, l.SetConfig(aimd.Config{Manual: true, Target: 0.9, Initial: 100, Max: 1000, Increase: 0.1,
		Gain: 0.4, Backoff: 0.3, Decrease: 0.7, MemoryLimit: -1,
		Signal: aimd.SignalFunc(func(time.Time) (float64, error) { return load, nil })}))
	load = 1.5
	tick()
	tick()
	cut = l.Limit()
	load = 0.85
	tick()
	assert.Less(t, l.Limit(), before, "without Recover the climb is gradual")
	assert.Greater(t, l.Limit(), cut)
}
