package balancer_test

import (
	"fmt"
	"math"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/balancer"
)

// TestCapacityWeightCoresBeyondFloatRange: Cores is any proportional unit, and a
// tier's cores may span more than the float64 range. Taken over their median,
// the weighted hosts' tiny cores underflowed to 0, their weight per core read
// +Inf, and a tiny new host's capacity weight was 0 x +Inf: a NaN weight, a NaN
// KeyspaceMoved, and a Stats.Keyspace that stayed NaN from then on.
func TestCapacityWeightCoresBeyondFloatRange(t *testing.T) {
	var hs []balancer.Host
	for i := range 3 {
		hs = append(hs, balancer.Host{ID: fmt.Sprint("a", i), Cores: 0x1p-1000, Weight: 1, CPU: 0.5})
	}
	for i := range 5 {
		hs = append(hs, balancer.Host{ID: fmt.Sprint("b", i), Cores: 0x1p100, New: true})
	}
	hs = append(hs, balancer.Host{ID: "c", Cores: 0x1p-1000, New: true})
	b := mustNew(t, balancer.Config{})
	res, err := b.Step(t0, hs)
	require.NoError(t, err)
	cfg := b.Config()
	for _, d := range res.Hosts {
		require.False(t, math.IsNaN(d.New), "%+v", d)
		require.True(t, d.New >= cfg.MinWeight && d.New <= cfg.MaxWeight, "%+v", d)
	}
	require.True(t, res.KeyspaceMoved >= 0 && res.KeyspaceMoved <= 1, "moved %v", res.KeyspaceMoved)
	require.False(t, math.IsNaN(b.Stats().Keyspace))
}
