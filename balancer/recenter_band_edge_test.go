package balancer_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/balancer"
)

// TestRecenterBandEdgeIsInside: RecenterBand is "how far the median weight may
// wander from TargetMedian before every weight is rescaled", so a median of
// exactly (1+RecenterBand) or (1-RecenterBand) times TargetMedian has not left
// the band. With the default 0.05, a tier of held hosts at weights 1.05 (or
// 0.95) was rescaled all the same: the deviation 1.05-1 reads
// 0.050000000000000044 in float64, past the band, and every published weight
// was touched.
func TestRecenterBandEdgeIsInside(t *testing.T) {
	for _, band := range []float64{0.05, 0.1} {
		for _, w := range []float64{1 + band, 1 - band} {
			b := mustNew(t, balancer.Config{RecenterBand: band})
			var hosts []balancer.Host
			for i := range 4 {
				hosts = append(hosts, balancer.Host{ID: fmt.Sprint("h", i), Cores: 32, Weight: w, CPU: 0.5})
			}
			res, err := b.Step(t0, hosts)
			require.NoError(t, err)
			assert.False(t, res.Recentered, "band %v, median weight %v", band, w)
			for _, d := range res.Hosts {
				assert.Equal(t, balancer.ReasonHeld, d.Reason, "band %v: %+v", band, d)
				assert.Equal(t, d.Old, d.New, "band %v: %+v", band, d)
			}
		}
	}
}
