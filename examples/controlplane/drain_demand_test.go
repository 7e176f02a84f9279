package controlplane_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The tick after a Drain measures an interval in which clients still sent the
// gateway their work (they had not followed the new routes yet): that work is
// its region's demand. The plane skipped a draining gateway's CPU in the
// estimate as well as its cores, and eu's demand read a third low (a sixth,
// smoothed) for the failover router at the very tick its capacity dropped.
func TestDrainKeepsRegionDemand(t *testing.T) {
	p, ft := twoRegions(t, 1.5)
	k := 0
	run(t, p, ft, &k, 8)
	require.InDelta(t, 1.5, region(p.State(), "eu").Demand, 1e-9)
	ft.advance(time.Second) // one interval on the routes before the drain
	require.NoError(t, p.Drain("eu-1"))
	k++
	require.NoError(t, p.Tick(context.Background(), t0.Add(time.Duration(k)*time.Second)))
	eu := region(p.State(), "eu")
	assert.InDelta(t, 2.0, eu.Capacity, 1e-9, "a draining gateway is no capacity")
	assert.InDelta(t, 1.5, eu.Demand, 1e-9, "the drained gateway's last interval served eu's clients")
	for range 3 { // clients moved: the other two serve it all, the drained one nothing
		run(t, p, ft, &k, 1)
		assert.InDelta(t, 1.5, region(p.State(), "eu").Demand, 1e-9)
	}
}
