package failover_test

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/failover"
)

// TestHugeHostCPUMean: host CPUs near the float64 maximum overflow their sum.
// The mean read +Inf, which no finite readings average to, and the region's
// imbalance P/Mean read as none (1): its Home, what fires it and sizes the
// room it receives into, was read as if its hosts were even.
func TestHugeHostCPUMean(t *testing.T) {
	r, err := failover.New(failover.Config{Regions: []failover.Region{{Name: "a"}}})
	require.NoError(t, err)
	cpu := []float64{1e308, 1e308, 1e308, 1e308, 1.6e308}
	tab, err := r.Step(t0, []failover.Load{{Region: "a", Demand: 0.3, Capacity: 1, HostCPU: cpu}})
	require.NoError(t, err)
	s := tab.Regions[0].Signal
	require.False(t, math.IsInf(s.Mean, 0), "mean %v", s.Mean)
	assert.InDelta(t, 1.12, s.Mean/1e308, 1e-12)
	assert.InDelta(t, 0.3*1.6/1.12, s.Home, 1e-12)
}
