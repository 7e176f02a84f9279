package aimd_test

import (
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/aimd"
)

// TestLatencySumDoesNotWrap: latencies whose sum passes math.MaxInt64
// nanoseconds (some 292 years: a start stamp never set makes time.Since
// saturate there) still read as a huge mean, which cuts the limit. The sum
// was an int64 that wrapped: the mean read negative, "no reading", so the
// period that most needs a cut left the limit where it was, or wrapped to a
// small positive mean that opened it.
func TestLatencySumDoesNotWrap(t *testing.T) {
	var l aimd.Latency
	l.Observe(time.Duration(math.MaxInt64))
	for range 9 {
		l.Observe(time.Second)
	}
	v, err := l.Sample(time.Time{})
	require.NoError(t, err)
	want := (float64(math.MaxInt64)/1e9 + 9) / 10
	assert.InEpsilon(t, want, v, 1e-9, "mean latency of the period")

	for range 3 { // 200 years each: the sum wraps to a small positive one
		l.Observe(200 * 365 * 24 * time.Hour)
	}
	v, err = l.Sample(time.Time{})
	require.NoError(t, err)
	assert.InEpsilon(t, (200 * 365 * 24 * time.Hour).Seconds(), v, 1e-9, "mean latency of the period")
}
