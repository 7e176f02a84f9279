package control_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
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

// TestHTTPBadBodyCounts: a POST / or POST /rollback whose body the handler
// cannot read as a request (bad JSON, an unknown field, a wrong type, a change
// without a value, a body not sent as JSON) is a change request refused by
// validation: it counts in Requests and Rejected, as the same mistakes made
// through the Go API do, so the outcome counters add up to Requests as Stats
// documents. Before, such a request counted nowhere.
func TestHTTPBadBodyCounts(t *testing.T) {
	fx := newFixture(t, control.Config{})
	h := fx.reg.Handler()
	tests := []struct {
		path, body string
		wantStatus int
	}{
		{"/", `{"changes": [`, http.StatusBadRequest},
		{"/", `{"changes": [{"knob": "n", "value": 5}], "bogus": 1}`, http.StatusBadRequest},
		{"/", `{"changes": [{"knob": "n", "value": 5}], "dry_run": "yes"}`, http.StatusBadRequest},
		{"/", `{"changes": [{"knob": "n"}]}`, http.StatusBadRequest},
		{"/", `{"changes": [{"value": 5}]}`, http.StatusBadRequest},
		{"/rollback", `{"who": 7}`, http.StatusBadRequest},
		{"/rollback", `null`, http.StatusBadRequest},
	}
	for i, tt := range tests {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, postJSON(tt.path, tt.body))
		require.Equal(t, tt.wantStatus, rec.Code, tt.body)
		st := fx.reg.Stats()
		require.Equal(t, uint64(i+1), st.Requests, tt.body)
		require.Equal(t, uint64(i+1), st.Rejected, tt.body)
		require.Equal(t, st.Requests, outcomes(st), tt.body)
	}

	req := httptest.NewRequest(http.MethodPost, "/", strings.NewReader(`{"changes": [{"knob": "n", "value": 5}]}`))
	req.Header.Set("Content-Type", "text/plain")
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	require.Equal(t, http.StatusUnsupportedMediaType, rec.Code)
	st := fx.reg.Stats()
	require.Equal(t, uint64(len(tests)+1), st.Requests)
	require.Equal(t, st.Requests, outcomes(st))
	require.Equal(t, int64(10), fx.n, "nothing applied")
}
