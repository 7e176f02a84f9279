package aimd_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/aimd"
)

// runLimiter is plant.run through a real Limiter (Manual, stepped by Tick on
// explicit time) instead of the pure Update: the signal reads the plant's
// load for the limit in force during the period before, one step of lag as
// in plant.runWith. It returns the Limiter's limits after each step.
func (p *plant) runLimiter(t *testing.T, l *aimd.Limiter, now *time.Time, d, period time.Duration) []float64 {
	t.Helper()
	var out []float64
	for range int(d / period) {
		*now = now.Add(period)
		require.NoError(t, l.Tick(*now))
		out = append(out, float64(l.Limit()))
	}
	return out
}

// newPlantLimiter returns a Limiter with params' tunables whose signal is p's
// load for the limit of the period before.
func newPlantLimiter(t *testing.T, p *plant, initial int) *aimd.Limiter {
	t.Helper()
	var l *aimd.Limiter
	prev := float64(initial)
	sig := aimd.SignalFunc(func(time.Time) (float64, error) {
		load := p.load(prev)
		prev = float64(l.Limit()) // the limit in force during the coming period
		return load, nil
	})
	l, err := aimd.New(aimd.Config{Signal: sig, Manual: true, MemoryLimit: -1, Target: params.Target,
		Increase: params.Increase, Gain: params.Gain, Decrease: params.Decrease,
		Min: int(params.Min), Max: int(params.Max), Initial: initial, Period: 100 * time.Millisecond})
	require.NoError(t, err)
	return l
}

// TestLimiterSettlesAfterCapacityDoubles: the targets, on the shipped
// Limiter rather than on the pure Update alone (TestSettleAfterCapacityDoubles):
// within +-10% of the new equilibrium in at most 5 s of control time, at most
// 10% over it. Before, the Limiter itself was checked only by one reading at
// 5 s, which let a Limiter that overshot by a quarter pass (found by a review).
func TestLimiterSettlesAfterCapacityDoubles(t *testing.T) {
	const period = 100 * time.Millisecond
	for _, capacity := range []float64{50, 100, 400} {
		p := &plant{capacity: capacity}
		l := newPlantLimiter(t, p, int(params.Min))
		now := time.Unix(1_700_000_000, 0)
		before := p.runLimiter(t, l, &now, 20*time.Second, period)
		p.capacity = 2 * capacity
		after := p.runLimiter(t, l, &now, 20*time.Second, period)
		assertSettles(t, "Limiter", capacity, before, after, period)
	}
}

// TestLimiterRecoversAfterOverload: the target on the shipped
// Limiter: once an outside hog that drove the limit to Min stops, full
// admission (a limit covering the offered demand) returns within 2 s.
func TestLimiterRecoversAfterOverload(t *testing.T) {
	const period = 100 * time.Millisecond
	for _, offered := range []float64{30, 60, 85} {
		p := &plant{capacity: 100, offered: offered, hog: 0.95}
		l := newPlantLimiter(t, p, int(params.Max))
		now := time.Unix(1_700_000_000, 0)
		during := p.runLimiter(t, l, &now, 10*time.Second, period)
		p.hog = 0
		after := p.runLimiter(t, l, &now, 5*time.Second, period)
		assertRecovers(t, "Limiter", offered, during, after, period)
	}
}
