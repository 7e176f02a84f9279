package failover_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/failover"
)

// A region that fires sheds at least DownStep, as doc.go says, also when DownStep
// is above MinChange and the want falls between them: it used to shed only the
// want, and a hot region jumped to DownStep one run later (a second rise).
func TestFireShedsDownStepAboveMinChange(t *testing.T) {
	cfg := six()
	cfg.DownStep = 0.1 // MinChange keeps its default, 0.02
	r := mustNew(t, cfg)
	// b1 home p90 0.77 x 1.045 = 0.804 >= Enter: want 1 - 0.75/0.804 = 0.067
	tab, err := r.Step(t0, loads(0.5, map[string]float64{"b1": 0.77}))
	require.NoError(t, err)
	d := decision(tab, "b1")
	require.Equal(t, failover.Spilling, d.Phase, d.Reason)
	require.InDelta(t, 0.1, d.Want, 1e-12, "fired with a share below DownStep")
	// and it stays there: the rise rule does not move a share already at DownStep
	tab, err = r.Step(t0, loads(0.5, map[string]float64{"b1": 0.77}))
	require.NoError(t, err)
	require.InDelta(t, 0.1, decision(tab, "b1").Want, 1e-12)
}
