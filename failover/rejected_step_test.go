package failover_test

import (
	"errors"
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/failover"
)

// TestRejectedStepChangesNothing pins "Step changes nothing when it returns" a
// *LoadError: a router fed a rejected Step before every good one publishes the
// same tables (run numbers included) and counts the same runs, spills and
// route changes as one that never saw them, through a2 firing and recovering.
func TestRejectedStepChangesNothing(t *testing.T) {
	clean, fed := mustNew(t, six()), mustNew(t, six())
	for i := range 60 {
		now := t0.Add(time.Duration(i) * time.Minute)
		u := 0.6
		if i >= 5 && i < 25 {
			u = 0.6 + 0.02*float64(min(i-5, 12))
		}
		good := loads(0.5, map[string]float64{"a2": u})
		bad := append(loads(0.5, map[string]float64{"a2": u}), failover.Load{Region: "b3", Demand: math.NaN()})
		_, err := fed.Step(now, bad)
		var le *failover.LoadError
		require.True(t, errors.As(err, &le), "run %d: %v", i, err)

		want, err := clean.Step(now, good)
		require.NoError(t, err)
		got, err := fed.Step(now, good)
		require.NoError(t, err)
		require.Equal(t, want, got, "run %d", i)
	}
	ws, gs := clean.Stats(), fed.Stats()
	require.Positive(t, ws.SpillStarts, "a2 never fired: the test does not cover spilling")
	require.EqualValues(t, 60, gs.Rejected)
	gs.Rejected = 0
	require.Equal(t, ws, gs)
}
