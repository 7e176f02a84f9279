package control_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/control"
)

// outcomes sums the counters of which each request counts in one.
func outcomes(s control.Stats) uint64 {
	return s.Applied + s.NoOps + s.DryRuns + s.Rejected + s.RateLimited + s.ApplyFailed
}

// TestRollbackWithNothingCounts: a rollback with nothing to undo counts as
// Rejected, so the outcome counters add up to Requests as Stats documents.
// Before, it counted in Requests only.
func TestRollbackWithNothingCounts(t *testing.T) {
	fx := newFixture(t, control.Config{})
	_, err := fx.reg.RollbackAt(t0, "ops", "nothing yet")
	require.ErrorIs(t, err, control.ErrNothingToRollback)
	st := fx.reg.Stats()
	require.Equal(t, uint64(1), st.Requests)
	require.Equal(t, uint64(1), st.Rejected)
	require.Equal(t, st.Requests, outcomes(st))

	_, err = fx.reg.ApplyAt(t0, one("n", control.Int(20)))
	require.NoError(t, err)
	_, err = fx.reg.RollbackAt(t0, "ops", "undo")
	require.NoError(t, err)
	_, err = fx.reg.RollbackAt(t0, "ops", "again")
	require.ErrorIs(t, err, control.ErrNothingToRollback)
	_, err = fx.reg.ApplyAt(t0, control.Request{})
	require.ErrorIs(t, err, control.ErrEmptyRequest)
	st = fx.reg.Stats()
	require.Equal(t, uint64(5), st.Requests)
	require.Equal(t, uint64(2), st.Applied)
	require.Equal(t, uint64(3), st.Rejected)
	require.Equal(t, st.Requests, outcomes(st))
}
