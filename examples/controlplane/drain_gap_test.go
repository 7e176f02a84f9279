package controlplane_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A failed poll takes no sample, so the next good one still covers the time
// the gateway drained: the plane forgot that at the failed poll, averaged the
// idle reading in, and the gateway, reading cold, gained weight (a new
// version). Drained by hand then undrained, or drained by failed polls then
// answering a bad state, before the next good poll: its weight must not move.
func TestDrainThenMissedPollKeepsWeight(t *testing.T) {
	t.Run("by hand", func(t *testing.T) {
		p, ft := twoRegions(t, 1.5)
		k := 0
		run(t, p, ft, &k, 5)
		w := host(p.State(), "eu-1").Weight
		_, v := p.Routes()
		require.NoError(t, p.Drain("eu-1"))
		ft.advance(time.Second) // idle: clients skip it
		require.NoError(t, p.Undrain("eu-1"))
		ft.set("eu-1", func(g *fakeGW) { g.down = true })
		run(t, p, ft, &k, 1) // one missed poll
		ft.set("eu-1", func(g *fakeGW) { g.down = false })
		run(t, p, ft, &k, 5)
		assert.Equal(t, w, host(p.State(), "eu-1").Weight, "an interval spent draining was averaged in")
		_, v2 := p.Routes()
		assert.Equal(t, v+2, v2, "the drain and the undrain only")
	})
	t.Run("down then bad state", func(t *testing.T) {
		p, ft := twoRegions(t, 1.5)
		k := 0
		run(t, p, ft, &k, 5)
		w := host(p.State(), "eu-1").Weight
		ft.set("eu-1", func(g *fakeGW) { g.down = true })
		run(t, p, ft, &k, 10)
		require.True(t, host(p.State(), "eu-1").Draining)
		ft.set("eu-1", func(g *fakeGW) { g.down, g.badState = false, true })
		run(t, p, ft, &k, 1) // reachable: no longer draining, but no sample
		require.False(t, host(p.State(), "eu-1").Draining)
		ft.set("eu-1", func(g *fakeGW) { g.badState = false })
		run(t, p, ft, &k, 5)
		assert.Equal(t, w, host(p.State(), "eu-1").Weight, "an interval spent draining was averaged in")
	})
}
