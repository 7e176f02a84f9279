package main

import (
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestEpochTableLagsTheCapacityLoss: the epoch baseline recomputed on every
// half hour, so on minute 540, the very minute a2 loses 30% of its capacity:
// its table took the loss in at once and spilled a2 from minute 541, as
// tierkit's per-minute table does, the best case of an epoch table. Its
// epochs now start half an epoch off the hour, so it reacts at the next
// epoch after the loss, half an epoch late: an epoch table's mean lag.
func TestEpochTableLagsTheCapacityLoss(t *testing.T) {
	for _, seed := range []uint64{1, 2} {
		w := newWorld(defaultFail(24*60), seed)
		i := slices.IndexFunc(failRouters(), func(r router) bool { return r.name() == "epoch table (30 min)" })
		require.GreaterOrEqual(t, i, 0)
		er := failRouters()[i]
		var routes []route
		spillsA2 := make([]bool, w.lossAt+epochLen) // by the minute whose loads made the table
		for m := range spillsA2 {
			demand, capacity, _, _ := traffic(w, m, routes)
			routes = er.step(m, w, demand, capacity, nil)
			spillsA2[m] = slices.ContainsFunc(routes, func(r route) bool { return r.from == 1 })
		}
		assert.False(t, spillsA2[w.lossAt-1], "seed %d: a2 spills before the loss", seed)
		first := w.lossAt + slices.Index(spillsA2[w.lossAt:], true)
		assert.Equal(t, w.lossAt+epochPhase, first, "seed %d: first table spilling a2 after the loss", seed)
	}
}
