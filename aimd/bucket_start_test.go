package aimd_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/aimd"
)

// TestBucketStartsFullBelowOneTokenPerPeriod: a bucket whose rate earns less
// than one token per period holds one token at most (a burst of one), and
// starts full like any other: New admits the first request at once, as
// SetConfig enabling the same bucket does. It started with rate x Period
// tokens, under one, so the first request was refused.
func TestBucketStartsFullBelowOneTokenPerPeriod(t *testing.T) {
	sig := aimd.SignalFunc(func(time.Time) (float64, error) { return 0.5, nil })
	cfg := aimd.Config{Signal: sig, Manual: true, MemoryLimit: -1, MaxRate: 5, MinRate: 1, Period: 100 * time.Millisecond}
	now := time.Unix(1000, 0)

	l := newLimiter(t, cfg)
	d, err := l.TryAcquireAt(now)
	require.NoError(t, err, "New: the first request of a full bucket")
	d(true)
	_, err = l.TryAcquireAt(now)
	assert.ErrorIs(t, err, aimd.ErrLimitExceeded, "a burst of one token")

	noRate := cfg
	noRate.MaxRate, noRate.MinRate = 0, 0
	l = newLimiter(t, noRate)
	require.NoError(t, l.SetConfig(cfg))
	d, err = l.TryAcquireAt(now)
	require.NoError(t, err, "SetConfig: the first request of a full bucket")
	d(true)
}

// TestBucketEnabledBySetConfigStartsFull: a bucket that SetConfig enables
// starts at MaxRate and full, as New's does: one period of tokens (100 at
// 1000/s over 100 ms) for a burst at once. Its tokens were computed from the
// rate before the swap (0 without a bucket), so it held one token.
func TestBucketEnabledBySetConfigStartsFull(t *testing.T) {
	sig := aimd.SignalFunc(func(time.Time) (float64, error) { return 0.5, nil })
	burst := func(l *aimd.Limiter, now time.Time) int {
		n := 0
		for range 1000 {
			d, err := l.TryAcquireAt(now)
			if err != nil {
				break
			}
			n++
			d(true)
		}
		return n
	}
	now := time.Unix(1000, 0)
	for _, minRate := range []float64{0, 10} {
		cfg := aimd.Config{Signal: sig, Manual: true, MemoryLimit: -1, Max: 10000, Period: 100 * time.Millisecond}
		l := newLimiter(t, cfg)
		cfg.MaxRate, cfg.MinRate = 1000, minRate
		require.NoError(t, l.SetConfig(cfg))
		assert.Equal(t, 100, burst(l, now), "MinRate %v: enabled by SetConfig", minRate)
		assert.Equal(t, 100, burst(newLimiter(t, cfg), now), "MinRate %v: enabled by New", minRate)
	}
}
