package control_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/control"
)

// TestNoOpSpendsNoBudget pins the package doc's "no-op requests ... spend no
// budget": requests that set every knob to the value it has neither take the
// registry's change token (the change after them is not refused) nor are
// refused once the budget is spent.
func TestNoOpSpendsNoBudget(t *testing.T) {
	fx := newFixture(t, control.Config{Rate: 0.1, Burst: 1}) // one change per 10 s
	for i := range 3 {
		res, err := fx.reg.ApplyAt(t0, one("n", control.Int(10)))
		require.NoError(t, err, "no-op %d", i)
		assert.True(t, res.Changes[0].Unchanged, "no-op %d", i)
	}
	_, err := fx.reg.ApplyAt(t0, one("n", control.Int(20)))
	require.NoError(t, err, "the no-ops before it took the budget's one token")
	assert.Equal(t, int64(20), fx.n)

	// The budget is empty until t0+10s; a no-op is still answered as one.
	res, err := fx.reg.ApplyAt(t0.Add(time.Second), one("n", control.Int(20)))
	require.NoError(t, err, "a no-op refused for the spent budget")
	assert.True(t, res.Changes[0].Unchanged)
	_, err = fx.reg.ApplyAt(t0.Add(time.Second), one("n", control.Int(21)))
	require.ErrorIs(t, err, control.ErrRateLimited, "the budget is spent for a change")

	st := fx.reg.Stats()
	assert.Equal(t, uint64(4), st.NoOps)
	assert.Equal(t, uint64(1), st.RateLimited)
	assert.Equal(t, 1, fx.calls, "only the change called Apply")
}
