package balancer_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/balancer"
)

// TestHomogeneousTierJoinIsNotFlat: a balanced tier of identical hosts has equal
// weights, and rightly so. A host of another size joining it is task churn: it starts
// from capacity times NewHostFactor (cool) and the others keep their weights. The
// flat-initial check read the weights of the weighted hosts against the cores of
// every host, the newcomer included, so it saw "weights flat while cores vary",
// reset the whole tier to capacity weights and gave the newcomer its full capacity
// weight, NewHostFactor ignored.
func TestHomogeneousTierJoinIsNotFlat(t *testing.T) {
	var hosts []balancer.Host
	for i := range 20 {
		hosts = append(hosts, balancer.Host{ID: fmt.Sprint("h", i), Cores: 32, Weight: 1, CPU: 0.5 + 0.001*float64(i%3)})
	}
	for _, cores := range []float64{64, 16} {
		t.Run(fmt.Sprint(cores, " cores"), func(t *testing.T) {
			b := mustNew(t, balancer.Config{})
			for range 3 {
				res, err := b.Step(t0, hosts)
				require.NoError(t, err)
				require.Equal(t, balancer.SteadyDrift, res.State, res.Evidence)
			}
			in := append(hosts[:20:20], balancer.Host{ID: "new", Cores: cores, New: true})
			res, err := b.Step(t0, in)
			require.NoError(t, err)
			assert.Equal(t, balancer.TaskChurn, res.State, res.Evidence)
			d := res.Hosts[20]
			assert.Equal(t, balancer.ReasonCapacity, d.Reason)
			assert.InDelta(t, cores/32*0.85, d.New, 1e-12, "capacity x NewHostFactor")
			for _, d := range res.Hosts[:20] {
				assert.Equal(t, balancer.ReasonHeld, d.Reason, "%+v", d)
				assert.Equal(t, d.Old, d.New, "%+v", d)
			}
			assert.Equal(t, uint64(1), b.Stats().NewHosts)
		})
	}
}
