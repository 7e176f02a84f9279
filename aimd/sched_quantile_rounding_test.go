package aimd

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestQuantileExactRank: the q-quantile of n latencies is the ceil(q x n)-th
// smallest, and q x n must be read as the exact product: 0.07 x 100 is
// 7.000000000000001 in float64, 0.28 x 25 is 7.000000000000001 and 0.55 x 100
// is 55.00000000000001, so the rank came out one higher (8, 8, 56) and a
// SchedLatency with such a Quantile read the bucket of the next latency, a
// slower one when it is the first of the tail.
func TestQuantileExactRank(t *testing.T) {
	buckets := []float64{0, 0.001, 0.01, math.Inf(1)}
	for _, tt := range []struct {
		q          float64
		fast, slow uint64 // latencies under 1 ms, and in [1 ms, 10 ms)
	}{
		{0.07, 7, 93},
		{0.28, 7, 18},
		{0.55, 55, 45},
		{0.5, 50, 50}, // exact in float64 too
	} {
		a := []uint64{0, 0, 0}
		b := []uint64{tt.fast, tt.slow, 0}
		assert.InDelta(t, 0.001, quantile(a, b, buckets, tt.q), 0,
			"q %v of %d fast and %d slow: the %v-th is fast", tt.q, tt.fast, tt.slow, tt.fast)
		b = []uint64{tt.fast - 1, tt.slow + 1, 0}
		assert.InDelta(t, 0.01, quantile(a, b, buckets, tt.q), 0,
			"q %v of %d fast and %d slow: the %v-th is slow", tt.q, tt.fast-1, tt.slow+1, tt.fast)
	}
}
