package balancer_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/balancer"
)

// TestRecenterAloneMovesNoKeyspace: "rescaling every weight moves no keys", and a
// recenter alone "changes no share". A balanced tier whose weights sit on another
// scale (0.1 per core) is rescaled onto TargetMedian and no host moves (Changed 0),
// yet KeyspaceMoved read 1.4e-16, the rounding of the two weight sums, and
// Stats.Keyspace summed it: a caller publishing only when keys move would publish.
func TestRecenterAloneMovesNoKeyspace(t *testing.T) {
	for _, per := range []float64{0.1, 3, 1e-3} {
		t.Run(fmt.Sprint(per, " per core"), func(t *testing.T) {
			var hosts []balancer.Host
			for i := range 40 {
				c := float64(26 + 5*(i%21)) // 26..126 cores
				hosts = append(hosts, balancer.Host{ID: fmt.Sprint("h", i), Cores: c, Weight: c * per, CPU: 0.55})
			}
			b := mustNew(t, balancer.Config{})
			res, err := b.Step(t0, hosts)
			require.NoError(t, err)
			require.True(t, res.Recentered)
			require.Equal(t, 0, res.Changed, "%+v", res.Hosts)
			assert.Zero(t, res.KeyspaceMoved)
			assert.Zero(t, b.Stats().Keyspace)
		})
	}
}
