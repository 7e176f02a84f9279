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
