package failover_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/failover"
)

// FuzzStep drives the six-region tier with arbitrary per-run utilizations and checks
// the table's invariants every run: no panic, shares in [0, 1] summing to at most 1 per
// region and to the region's Out, Out <= Want, no route to itself or to a spilling
// region, only Local regions receive, and only spilling regions send.
func FuzzStep(f *testing.F) {
	f.Add([]byte{50, 50, 50, 50, 50, 50, 90, 95, 99, 120, 200, 0})
	f.Add([]byte{0, 0, 0, 0, 0, 0})
	f.Add([]byte{255, 1, 255, 1, 255, 1, 80, 80, 80, 80, 80, 80})
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := failover.New(six())
		require.NoError(t, err)
		names := []string{"a1", "a2", "a3", "b1", "b2", "b3"}
		for i := 0; i+5 < len(data) && i < 600; i += 6 {
			over := map[string]float64{}
			for j, n := range names {
				over[n] = float64(data[i+j]) / 100
			}
			ls := loads(0.5, over)
			if data[i]%17 == 0 {
				ls[1].Capacity = 0
			}
			tab, err := r.Step(t0, ls)
			require.NoError(t, err)
			checkTable(t, six(), ls, tab) // the property tests' invariants
			checkWire(t, tab)
			phase := map[string]failover.Phase{}
			sum := map[string]float64{}
			for _, d := range tab.Regions {
				phase[d.Name] = d.Phase
			}
			for _, rt := range tab.Routes {
				require.NotEqual(t, rt.From, rt.To)
				require.Equal(t, failover.Spilling, phase[rt.From])
				require.Equal(t, failover.Local, phase[rt.To])
				require.True(t, rt.Share > 0 && rt.Share <= 1, "share %v", rt.Share)
				sum[rt.From] += rt.Share
			}
			for _, d := range tab.Regions {
				require.LessOrEqual(t, sum[d.Name], 1+1e-9)
				require.InDelta(t, sum[d.Name], d.Out, 1e-9)
				require.LessOrEqual(t, d.Out, d.Want+1e-9)
				require.GreaterOrEqual(t, d.Unplaced, -1e-9)
			}
		}
	})
}
