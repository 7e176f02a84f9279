package balancer_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/balancer"
)

// TestDeadbandDecimalEdgeIsInside: the closed band holds for the decimal
// deadbands a Config is written with, not only for binary fractions. With the
// default Deadband 0.03, a host whose Decision.Load is 1+Deadband (both 1.03 in
// float64) is at the edge and must be left alone. Measuring the deviation
// |load-1| against Deadband read 1.03-1 as 0.030000000000000027, outside the
// band: the host was moved (or throttled) and counted toward WideShare.
func TestDeadbandDecimalEdgeIsInside(t *testing.T) {
	for _, db := range []float64{0.03, 0.05, 0.02} {
		b := mustNew(t, balancer.Config{Deadband: db})
		// a mean of exactly 0.5: loads are CPU*2, exact in float64
		cpus := []float64{(1 + db) / 2, (1 - db) / 2, 0.5, 0.5}
		var hosts []balancer.Host
		for i, cpu := range cpus {
			hosts = append(hosts, balancer.Host{ID: fmt.Sprint("h", i), Cores: 32, Weight: 1, CPU: cpu})
		}
		res, err := b.Step(t0, hosts)
		require.NoError(t, err)
		require.Equal(t, 1+db, res.Hosts[0].Load, "deadband %v: the host is at the upper edge", db)
		require.Equal(t, 1-db, res.Hosts[1].Load, "deadband %v: the host is at the lower edge", db)
		assert.False(t, res.Policy.Wide, "deadband %v: hosts at the edge are not outside the deadband", db)
		for _, d := range res.Hosts {
			assert.Equal(t, balancer.ReasonHeld, d.Reason, "deadband %v: %+v", db, d)
			assert.Equal(t, d.Old, d.New, "deadband %v: %+v", db, d)
		}
		assert.Zero(t, res.Changed, "deadband %v", db)
	}
}
