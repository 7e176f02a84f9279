package failover_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/failover"
)

// imbalanced returns the six regions at util 0.4, b1 at Demand/Capacity u with 18
// hosts at 0.9 m and 2 at 1.9 m (m = the mean host CPU, u): its p90 is 1.9 m, an
// imbalance k of 1.9, so its Home is 1.9 u. With noHosts, b1 reports no host
// CPUs and its Home reads Demand/Capacity, u.
func imbalanced(u float64, noHosts bool) []failover.Load {
	ls := loads(0.4, nil)
	for i := range ls {
		if ls[i].Region != "b1" {
			continue
		}
		ls[i].Demand = 1000 * u
		ls[i].HostCPU = nil
		if !noHosts {
			for j := range 20 {
				ls[i].HostCPU = append(ls[i].HostCPU, map[bool]float64{true: 1.9 * u, false: 0.9 * u}[j >= 18])
			}
		}
	}
	return ls
}

// TestHostCPUGapIsNotARamp: HostCPU may be empty ("use Demand/Capacity"), which
// reads Home at an imbalance of 1, another measure than the one the hosts give.
// b1 holds steady at Home 0.741 (under Target and Enter); one report without its
// host CPUs (a lost metrics scrape) read Home 0.39, and the next one with them a
// rise of 0.351: the trend projected it (0.741 + 5 x 0.09 x 0.351 = 0.899) and b1
// fired, shedding 17% of a steady demand for MinHold runs. As after a Percentile
// change, a reading on the other basis is a new baseline, not a per-run change.
func TestHostCPUGapIsNotARamp(t *testing.T) {
	const u = 0.39 // Home 1.9 x 0.39 = 0.741
	r := mustNew(t, six())
	for range 20 {
		tab, err := r.Step(t0, imbalanced(u, false))
		require.NoError(t, err)
		require.Equal(t, failover.Local, decision(tab, "b1").Phase)
	}
	_, err := r.Step(t0, imbalanced(u, true))
	require.NoError(t, err)
	for run := range 20 {
		tab, err := r.Step(t0, imbalanced(u, false))
		require.NoError(t, err)
		d := decision(tab, "b1")
		require.InDelta(t, 0.741, d.Signal.Home, 1e-9)
		assert.Equal(t, failover.Local, d.Phase, "run %d after the gap: %s", run, d.Reason)
		assert.Empty(t, tab.Routes, "run %d after the gap", run)
	}
	assert.Zero(t, r.Stats().SpillStarts)
}

// TestHostCPUArrivalIsNotARamp: the same at a region's first reports: b1's first
// report without host CPUs (its host metrics not up yet) is a baseline at
// imbalance 1, and the first with them must not read the imbalance as a rise.
func TestHostCPUArrivalIsNotARamp(t *testing.T) {
	const u = 0.39
	r := mustNew(t, six())
	_, err := r.Step(t0, imbalanced(u, true))
	require.NoError(t, err)
	for run := range 20 {
		tab, err := r.Step(t0, imbalanced(u, false))
		require.NoError(t, err)
		d := decision(tab, "b1")
		assert.Equal(t, failover.Local, d.Phase, "run %d: %s", run, d.Reason)
		assert.Zero(t, d.Signal.Trend, "run %d: a steady region has no trend", run)
	}
	assert.Zero(t, r.Stats().SpillStarts)
}
