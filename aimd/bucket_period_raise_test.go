package aimd_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/aimd"
)

// TestBucketPeriodRaisedKeepsEarnedTokens: the bucket refills lazily, from the
// last refill to the admission, capped at the burst in force then. A SetConfig
// that raised Period (and with it the burst) after an idle hour let that
// admission credit the whole hour under the new cap: 360000 tokens at once,
// though under the old Period the bucket never held more than 10 during that
// hour. Tokens earned before the swap stay capped at the old burst; the larger
// bucket fills at the rate from there.
func TestBucketPeriodRaisedKeepsEarnedTokens(t *testing.T) {
	l, cfg, burst := periodRaiseLimiter(t)
	t0 := time.Unix(1000, 0)
	require.Equal(t, 10, burst(t0), "one period of tokens: 100/s x 100ms")

	idle := t0.Add(time.Hour)
	cfg.Period = time.Hour
	require.NoError(t, l.SetConfig(cfg))
	assert.Equal(t, 10, burst(idle), "the idle hour earned the old burst, not the new one")
	assert.Equal(t, 100, burst(idle.Add(time.Second)), "from the swap on, the rate fills the larger bucket")
}

// periodRaiseLimiter is a manual Limiter at 100 tokens a second with a
// Period of 100 ms (a burst of 10), its config, and burst: the admissions
// TryAcquireAt grants at now until it refuses.
func periodRaiseLimiter(t *testing.T) (*aimd.Limiter, aimd.Config, func(now time.Time) int) {
	sig := aimd.SignalFunc(func(time.Time) (float64, error) { return 0.5, nil })
	cfg := aimd.Config{Signal: sig, Manual: true, MemoryLimit: -1, Max: aimd.MaxLimit,
		MaxRate: 100, MinRate: 100, Period: 100 * time.Millisecond}
	l := newLimiter(t, cfg)
	burst := func(now time.Time) int {
		n := 0
		for range 1_000_000 {
			d, err := l.TryAcquireAt(now)
			if err != nil {
				break
			}
			n++
			d(true)
		}
		return n
	}
	return l, cfg, burst
}
