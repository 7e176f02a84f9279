package balancer_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/balancer"
)

// TestNarrowedBoundsMoveIsBounded: after SetConfig narrows MaxWeight and raises
// MinWeight, hosts left alone by the load (in the deadband, throttled, or without a
// signal) whose weights lie outside the new bounds are moved onto them. Their reason
// must say the bound moved them, not "held", "throttled" or "no-signal", each of
// which says the weight is unchanged; hosts inside the bounds keep their reasons.
func TestNarrowedBoundsMoveIsBounded(t *testing.T) {
	b := mustNew(t, balancer.Config{MaxMoveShare: 0.01})
	var hosts []balancer.Host
	for i := range 100 {
		hosts = append(hosts, balancer.Host{ID: fmt.Sprint("h", i), Cores: 32, Weight: 1, CPU: 0.5})
	}
	hosts[0].Weight = 8                       // in the deadband, above the new MaxWeight
	hosts[1].Weight = 0.12                    // in the deadband, below the new MinWeight
	hosts[2].Weight, hosts[2].CPU = 9, 0      // no signal, above the new MaxWeight
	hosts[3].Weight, hosts[3].CPU = 7, 0.56   // outside the deadband, throttled
	hosts[4].Weight, hosts[4].CPU = 1.1, 0.57 // the most imbalanced: corrected
	_, err := b.Step(t0, hosts)
	require.NoError(t, err)
	require.NoError(t, b.SetConfig(balancer.Config{MaxMoveShare: 0.01, MinWeight: 0.2, MaxWeight: 5}))

	throttled := b.Stats().Throttled
	res, err := b.Step(t0, hosts)
	require.NoError(t, err)
	require.False(t, res.Recentered)
	for i, want := range []float64{5, 0.2, 5, 5} {
		d := res.Hosts[i]
		assert.Equal(t, want, d.New, "%+v", d)
		assert.Equal(t, balancer.ReasonBounded, d.Reason, "%+v", d)
	}
	assert.Equal(t, balancer.ReasonLowered, res.Hosts[4].Reason, "%+v", res.Hosts[4])
	for _, d := range res.Hosts[5:] {
		assert.Equal(t, balancer.ReasonHeld, d.Reason, "%+v", d)
		assert.Equal(t, d.Old, d.New, "%+v", d)
	}
	assert.Equal(t, 4+1, res.Changed)
	// the throttled host was not left alone: it does not count as throttled
	assert.Equal(t, throttled, b.Stats().Throttled)
}
