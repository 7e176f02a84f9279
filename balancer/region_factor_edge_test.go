package balancer_test

import (
	"fmt"
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/balancer"
)

// TestRegionFactorHalfDeadband: under regional skew a region takes a factor only
// when its median load is off 1 by more than half the deadband. At Deadband
// 0.125 (loads exact in float64: CPUs in 64ths over a mean of 0.5), region a at
// a median load of exactly 1.0625 and region c at 1.03125 take none, and region
// b at 0.90625 takes 0.90625^-0.8 (its hosts within the deadband, so only the
// factor moves them). Applying the factor at the edge (">=" for ">"), only past
// the whole deadband, or to any region off 1 at all passed the whole suite.
func TestRegionFactorHalfDeadband(t *testing.T) {
	b := mustNew(t, balancer.Config{Deadband: 0.125})
	regions := []struct {
		name   string
		cpu    float64
		weight float64
	}{{"a", 34.0 / 64, 1}, {"b", 29.0 / 64, 2}, {"c", 33.0 / 64, 1}}
	var hosts []balancer.Host
	for _, r := range regions {
		for i := range 4 {
			hosts = append(hosts, balancer.Host{ID: fmt.Sprint(r.name, i), Region: r.name, Cores: 32, Weight: r.weight, CPU: r.cpu})
		}
	}
	res, err := b.Step(t0, hosts)
	require.NoError(t, err)
	require.Equal(t, balancer.RegionalSkew, res.State, res.Evidence)
	require.True(t, res.Policy.Regional)
	require.False(t, res.Policy.Wide)
	require.False(t, res.Recentered)
	for i, d := range res.Hosts {
		switch regions[i/4].name {
		case "b":
			assert.True(t, d.Region, "%+v", d)
			assert.InDelta(t, 2*math.Pow(0.90625, -0.8), d.New, 1e-12, "%+v", d)
		default:
			assert.False(t, d.Region, "%+v", d)
			assert.Equal(t, balancer.ReasonHeld, d.Reason, "%+v", d)
			assert.Equal(t, d.Old, d.New, "%+v", d)
		}
	}
	assert.Equal(t, 1.0625, res.Hosts[0].Load)
}
