package control_test

import (
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/control"
)

// ApplyAt and RollbackAt refuse a time that JSON cannot encode (a year past
// 9999 or before 0) and change nothing. Taken, it was stamped on the audit
// entries and kept as the knob's last change, which never moves back in
// time: GET /, GET /knobs and GET /audit answered 500 internal from then
// on, GET /knobs for good.
func TestApplyAtTimeOutsideJSON(t *testing.T) {
	far := time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC)
	before := time.Date(-1, 1, 1, 0, 0, 0, 0, time.UTC)
	fx := newFixture(t, control.Config{})
	_, err := fx.reg.ApplyAt(far, one("n", control.Int(20)))
	require.ErrorIs(t, err, control.ErrBadRequest)
	_, err = fx.reg.ApplyAt(before, one("n", control.Int(20)))
	require.ErrorIs(t, err, control.ErrBadRequest)
	assert.Equal(t, int64(10), fx.n, "nothing applied")

	_, err = fx.reg.ApplyAt(t0, one("n", control.Int(30)))
	require.NoError(t, err)
	_, err = fx.reg.RollbackAt(far, "ops", "")
	require.ErrorIs(t, err, control.ErrBadRequest)
	assert.Equal(t, int64(30), fx.n, "nothing rolled back")
	assert.Len(t, fx.reg.Audit(), 1)

	s := fx.reg.Stats()
	assert.Equal(t, uint64(4), s.Requests)
	assert.Equal(t, uint64(3), s.Rejected)

	h := fx.reg.Handler()
	for _, path := range []string{"/", "/knobs", "/audit"} {
		w := httptest.NewRecorder()
		h.ServeHTTP(w, httptest.NewRequest(http.MethodGet, path, nil))
		assert.Equal(t, http.StatusOK, w.Code, "%s: %s", path, w.Body)
	}
}
