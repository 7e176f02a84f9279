package failover_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/failover"
)

// TestHomeImbalanceAtLeastOne: the imbalance k that Home multiplies
// Demand/Capacity by is P/Mean, but never below 1. One host at 100% among
// nineteen at 10% puts the p90 (0.1) under the mean (0.145): Home reads
// Demand/Capacity (0.5), not Demand/Capacity x P/Mean (0.34), which the
// Signal.Home doc gave as its formula.
func TestHomeImbalanceAtLeastOne(t *testing.T) {
	r := mustNew(t, failover.Config{Regions: []failover.Region{{Name: "a"}}})
	cpu := make([]float64, 20)
	for i := range cpu {
		cpu[i] = 0.1
	}
	cpu[19] = 1
	tab, err := r.Step(t0, []failover.Load{{Region: "a", Demand: 50, Capacity: 100, HostCPU: cpu}})
	require.NoError(t, err)
	s := tab.Regions[0].Signal
	require.Less(t, s.P, s.Mean, "the case to test: a percentile below the mean")
	assert.Equal(t, 0.1, s.P)
	assert.InDelta(t, 0.145, s.Mean, 1e-12)
	assert.Equal(t, 0.5, s.Home, "Home = Demand/Capacity x max(1, P/Mean)")
}
