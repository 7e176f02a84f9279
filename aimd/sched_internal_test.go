package aimd

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestQuantile(t *testing.T) {
	buckets := []float64{0, 0.001, 0.01, 0.1, math.Inf(1)}
	a := []uint64{5, 5, 5, 5}
	for _, tt := range []struct {
		name string
		b    []uint64
		q    float64
		want float64
	}{
		{"nothing added", []uint64{5, 5, 5, 5}, 0.99, math.NaN()},
		{"all in the first bucket", []uint64{105, 5, 5, 5}, 0.99, 0.001},
		{"the tail decides the p99", []uint64{103, 5, 5, 7}, 0.99, 0.1},
		{"the median ignores the tail", []uint64{103, 5, 5, 7}, 0.5, 0.001},
		{"one slow in a hundred is beyond the p99", []uint64{104, 5, 6, 5}, 0.99, 0.001},
		{"two slow in a hundred (bucket [0.01, 0.1))", []uint64{103, 5, 7, 5}, 0.99, 0.1},
		{"unbounded last bucket", []uint64{5, 5, 5, 105}, 0.99, 0.1},
	} {
		got := quantile(a, tt.b, buckets, tt.q)
		if math.IsNaN(tt.want) {
			assert.True(t, math.IsNaN(got), tt.name)
			continue
		}
		assert.InDelta(t, tt.want, got, 1e-12, tt.name)
	}
	assert.True(t, math.IsNaN(quantile(a, []uint64{1}, buckets, 0.5)), "mismatched lengths")
}
