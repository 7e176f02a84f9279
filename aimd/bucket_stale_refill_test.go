package aimd_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestBucketPeriodRaisedStaleReadingKeepsCap: after a SetConfig that raised
// Period (and with it the burst), the first refill is capped at the previous
// bucket. An admission whose time was read a moment before the latest refill
// (concurrent callers of TryAcquire, or a caller's stamp; TryAcquireAt
// tolerates times up to a period back) credits nothing, yet it used up that
// cap: the next admission then credited the whole idle hour under the new
// cap, 360000 tokens at once, where the bucket had never held more than 10.
// The cap now waits for the first refill that credits time.
func TestBucketPeriodRaisedStaleReadingKeepsCap(t *testing.T) {
	l, cfg, burst := periodRaiseLimiter(t)
	t0 := time.Unix(1000, 0)
	require.Equal(t, 10, burst(t0), "one period of tokens: 100/s x 100ms")

	cfg.Period = time.Hour
	require.NoError(t, l.SetConfig(cfg))
	assert.Equal(t, 0, burst(t0.Add(-time.Millisecond)), "a stale reading: no tokens earned")
	assert.Equal(t, 0, burst(t0), "nor at the time of the last refill")
	require.NoError(t, l.Tick(t0), "nor a step at that time")
	idle := t0.Add(time.Hour)
	assert.Equal(t, 10, burst(idle), "the idle hour earned the old burst, not the new one")
	assert.Equal(t, 100, burst(idle.Add(time.Second)), "from the swap on, the rate fills the larger bucket")
}
