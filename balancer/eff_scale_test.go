package balancer_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/balancer"
)

// TestEfficiencyInAnyUnit: the classifier reads efficiency (weight per core per
// unit of CPU, relative to the median), a ratio that does not depend on the
// cores' unit or on TargetMedian. It divided raw figures: large weights over
// small cores overflowed every efficiency to +Inf (NaN once relative to the
// median), and a bimodal tier was no longer recognized.
func TestEfficiencyInAnyUnit(t *testing.T) {
	m := newModel(3, 40, func(i int) float64 { return 0.6 + 0.6*float64(i%2) }, 1)
	for i := range m.hosts {
		m.hosts[i].Weight = m.hosts[i].Cores / 76
	}
	m.noise = 0
	plain := m.observe()
	const coreScale, target = 0x1p-30, 0x1p1000
	scaled := make([]balancer.Host, len(plain))
	for i, h := range plain {
		h.Cores *= coreScale
		h.Weight *= target
		scaled[i] = h
	}
	rp, err := mustNew(t, balancer.Config{}).Step(t0, plain)
	require.NoError(t, err)
	require.Equal(t, balancer.BimodalLoad, rp.State, rp.Evidence)
	rs, err := mustNew(t, balancer.Config{TargetMedian: target}).Step(t0, scaled)
	require.NoError(t, err)
	require.Equal(t, rp.State, rs.State, rs.Evidence)
	for i, d := range rs.Hosts {
		require.InDelta(t, rp.Hosts[i].New, d.New/target, 1e-9, "%+v", d)
	}
}
