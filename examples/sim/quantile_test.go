package main

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestQuantileNearestRank: the q-quantile of n sorted values is the
// ceil(q x n)-th smallest (nearest rank). The p95 of 1..100 is 95, not 96,
// and the p95 of 300 runs the 285th value, not the 286th.
func TestQuantileNearestRank(t *testing.T) {
	xs := make([]float64, 100)
	for i := range xs {
		xs[len(xs)-1-i] = float64(i + 1) // unsorted on purpose
	}
	assert.Equal(t, 95.0, quantile(xs, 0.95))
	assert.Equal(t, 50.0, quantile(xs, 0.5))
	assert.Equal(t, 1.0, quantile(xs, 0))
	assert.Equal(t, 100.0, quantile(xs, 1))
	assert.Equal(t, 96.0, quantile(xs, 0.951))

	runs := make([]float64, 300)
	for i := range runs {
		runs[i] = float64(i + 1)
	}
	assert.Equal(t, 285.0, quantile(runs, 0.95))
	assert.Equal(t, 7.0, quantile([]float64{7}, 0.95))
}

// TestQuantileWholeRank: for every whole percentile k and n up to 400, the
// rank read is the integer ceil(k x n / 100), whatever the float product
// rounds to (0.55 x 100 is 55.00000000000001 in floats).
func TestQuantileWholeRank(t *testing.T) {
	for n := 1; n <= 400; n++ {
		xs := make([]float64, n)
		for i := range xs {
			xs[i] = float64(i + 1)
		}
		for k := 0; k <= 100; k++ {
			rank := max(1, (k*n+99)/100)
			if got := quantile(xs, float64(k)/100); got != float64(rank) {
				t.Fatalf("quantile(1..%d, %d/100) = %v, want rank %d", n, k, got, rank)
			}
		}
	}
}
