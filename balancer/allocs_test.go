package balancer_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/balancer"
)

// TestStatsConfigAllocateNothing holds the package doc to its word: Stats and
// Config allocate nothing, after runs as before the first (under -race
// too).
func TestStatsConfigAllocateNothing(t *testing.T) {
	b := mustNew(t, balancer.Config{})
	hosts := []balancer.Host{
		{ID: "a", Cores: 32, Weight: 0.5, CPU: 0.50},
		{ID: "b", Cores: 64, Weight: 1.0, CPU: 0.72},
		{ID: "c", Cores: 64, New: true},
	}
	for run := range 2 {
		var st balancer.Stats
		var cfg balancer.Config
		if n := testing.AllocsPerRun(100, func() { st = b.Stats() }); n != 0 {
			t.Errorf("after %d runs: Stats: %v allocations per call, want 0", run, n)
		}
		if n := testing.AllocsPerRun(100, func() { cfg = b.Config() }); n != 0 {
			t.Errorf("after %d runs: Config: %v allocations per call, want 0", run, n)
		}
		require.Equal(t, uint64(run), st.Runs)
		require.Positive(t, cfg.TargetMedian, "defaults filled in")
		_, err := b.Step(t0, hosts)
		require.NoError(t, err)
	}
}
