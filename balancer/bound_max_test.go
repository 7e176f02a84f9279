package balancer_test

import (
	"fmt"
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/balancer"
)

// TestRaiseAtFloatMaxIsBounded: with MaxWeight x TargetMedian past the float64
// maximum, the upper bound is that maximum. A light host already there asks for a
// raise that overflows and is cut back to the same weight: it did not move, so its
// reason is "bounded", not "raised" (ReasonBounded: "a host already at the bound
// keeps its weight").
func TestRaiseAtFloatMaxIsBounded(t *testing.T) {
	b := mustNew(t, balancer.Config{TargetMedian: 1e300, MaxWeight: 1e300})
	var hosts []balancer.Host
	for i := range 10 {
		hosts = append(hosts, balancer.Host{ID: fmt.Sprint("h", i), Cores: 4, CPU: 0.5, Weight: 1e300})
	}
	hosts[0].Weight, hosts[0].CPU = math.MaxFloat64, 0.3 // at the bound, light: wants more
	res, err := b.Step(t0, hosts)
	require.NoError(t, err)
	require.False(t, res.Recentered)
	d := res.Hosts[0]
	assert.Equal(t, d.Old, d.New, "%+v", d)
	assert.Equal(t, balancer.ReasonBounded, d.Reason, "%+v", d)
}
