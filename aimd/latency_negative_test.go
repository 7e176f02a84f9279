package aimd_test

import (
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/aimd"
)

// TestLatencyIgnoresNegative: a negative latency (work timed by wall-clock
// stamps across a step of the clock back) is no observation. It was summed:
// one of -1 h among nine of 1 s made the period's mean negative, "no
// reading", so an overloaded period left the limit as it was, and a smaller
// one pulled the mean down and opened the limit.
func TestLatencyIgnoresNegative(t *testing.T) {
	var l aimd.Latency
	for range 9 {
		l.Observe(time.Second)
	}
	l.Observe(-time.Hour)
	v, err := l.Sample(time.Time{})
	require.NoError(t, err)
	assert.Equal(t, 1.0, v, "mean latency of the period")

	l.Observe(-time.Millisecond)
	v, err = l.Sample(time.Time{})
	require.NoError(t, err)
	assert.True(t, math.IsNaN(v), "a period with only negative latencies has no reading, got %v", v)
}
