package balancer_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/balancer"
)

// TestCapacityWeightSetByBoundIsBounded: a capacity weight (a new host, a flat
// reset) outside MinWeight or MaxWeight is moved onto the bound, and ReasonBounded
// ("MinWeight or MaxWeight set the weight") says so. It reported ReasonCapacity,
// which reads as cores times the tier's weight per core: a 64x host read as if it
// had been given 54 and not the 4 it got. Stats.NewHosts still counts it.
func TestCapacityWeightSetByBoundIsBounded(t *testing.T) {
	var tier []balancer.Host
	for i := range 20 {
		tier = append(tier, balancer.Host{ID: fmt.Sprint("h", i), Cores: 8, Weight: 1, CPU: 0.5})
	}
	for _, tc := range []struct {
		name  string
		cores float64
		want  float64
	}{
		{"above MaxWeight", 8 * 64, 4},    // 64 x 0.85 = 54.4, bounded to 4
		{"below MinWeight", 8 / 64., 0.1}, // 0.85/64 = 0.0133, bounded to 0.1
		{"within the bounds", 16, 1.7},    // 2 x 0.85: capacity
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := mustNew(t, balancer.Config{MinWeight: 0.1, MaxWeight: 4})
			_, err := b.Step(t0, tier)
			require.NoError(t, err)
			res, err := b.Step(t0, append(tier[:20:20], balancer.Host{ID: "new", Cores: tc.cores, New: true}))
			require.NoError(t, err)
			require.False(t, res.Recentered)
			d := res.Hosts[20]
			assert.InDelta(t, tc.want, d.New, 1e-12, "%+v", d)
			reason := balancer.ReasonBounded
			if tc.name == "within the bounds" {
				reason = balancer.ReasonCapacity
			}
			assert.Equal(t, reason, d.Reason, "%+v", d)
			assert.Equal(t, uint64(1), b.Stats().NewHosts, "a bounded capacity weight is a capacity reset")
		})
	}
	t.Run("flat reset", func(t *testing.T) {
		// equal weights, cores 8 and 8x64: the large hosts' capacity weight is 64
		// (their CPU follows their cores: at equal weights, a 64th of the others')
		hosts := make([]balancer.Host, len(tier))
		copy(hosts, tier)
		for i := range 4 {
			hosts[i].Cores, hosts[i].CPU = 8*64, 0.5/64
		}
		b := mustNew(t, balancer.Config{MinWeight: 0.1, MaxWeight: 4})
		res, err := b.Step(t0, hosts)
		require.NoError(t, err)
		require.Equal(t, balancer.FlatInitial, res.State, res.Evidence)
		for i, d := range res.Hosts {
			if i < 4 {
				assert.Equal(t, 4.0, d.New, "%+v", d)
				assert.Equal(t, balancer.ReasonBounded, d.Reason, "%+v", d)
			} else {
				assert.Equal(t, balancer.ReasonCapacity, d.Reason, "%+v", d)
			}
		}
		assert.Equal(t, uint64(len(hosts)), b.Stats().NewHosts)
	})
}
