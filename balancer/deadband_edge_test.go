package balancer_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/balancer"
)

// TestDeadbandEdgeIsInside: the deadband is a closed band. A host at a load of
// exactly 1+Deadband or 1-Deadband is inside it: left alone (ReasonHeld), and
// not among the hosts "outside the deadband" that make the tier unsettled
// (WideShare). The loads here are exact in float64 (CPUs in 64ths over a mean
// of 0.5), so the edge is hit, not approached. Treating the edge as outside in
// correct ("<" for "<=") moved one of the two hosts and throttled the other, and
// counting it outside in policyFor (">=" for ">") read the tier as unsettled
// (2 of 4 hosts above WideShare 0.25); the suite saw neither.
func TestDeadbandEdgeIsInside(t *testing.T) {
	b := mustNew(t, balancer.Config{Deadband: 0.125})
	cpus := []float64{36.0 / 64, 28.0 / 64, 0.5, 0.5} // loads 1.125, 0.875, 1, 1
	var hosts []balancer.Host
	for i, cpu := range cpus {
		hosts = append(hosts, balancer.Host{ID: fmt.Sprint("h", i), Cores: 32, Weight: 1, CPU: cpu})
	}
	res, err := b.Step(t0, hosts)
	require.NoError(t, err)
	require.Equal(t, balancer.SteadyDrift, res.State, res.Evidence)
	assert.False(t, res.Policy.Wide, "hosts at the edge are not outside the deadband")
	assert.Equal(t, 1.125, res.Hosts[0].Load)
	assert.Equal(t, 0.875, res.Hosts[1].Load)
	for _, d := range res.Hosts {
		assert.Equal(t, balancer.ReasonHeld, d.Reason, "%+v", d)
		assert.Equal(t, d.Old, d.New, "%+v", d)
	}
	assert.Zero(t, res.Changed)
	assert.Zero(t, b.Stats().Throttled)
}
