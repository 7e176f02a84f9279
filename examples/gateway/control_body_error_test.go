package main

import (
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/control"
)

// A /control change whose body the gate could not read (the client went away
// mid-body, or the server's read timeout cut it) was answered 400 by the gate
// itself and counted nowhere: control's Stats promise that every POST / and
// POST /rollback counts in Requests and in one outcome, and a body that is no
// request counts as Rejected when control reads it. The gate now hands the
// read failure to control, which answers it and counts it.
func TestControlBodyReadFailureCounted(t *testing.T) {
	reg, err := control.New(control.Config{})
	require.NoError(t, err)
	require.NoError(t, reg.RegisterInt(control.IntKnob{Name: "n", Value: 1, Max: 10,
		Apply: func(int64) error { return nil }}))
	g := &Gateway{}
	h := g.gateControl(control.Config{}, reg.Handler())

	for i, path := range []string{"/", "/rollback"} {
		body := io.MultiReader(strings.NewReader(`{"who":"t","changes":[{"knob":"n",`),
			iotest.ErrReader(errors.New("connection reset")))
		hr := httptest.NewRequest(http.MethodPost, path, body)
		hr.Header.Set("Content-Type", "application/json")
		rw := httptest.NewRecorder()
		h.ServeHTTP(rw, hr)
		assert.Equal(t, http.StatusBadRequest, rw.Code, "POST %s: %s", path, rw.Body)
		assert.Contains(t, rw.Body.String(), `"bad_request"`, "POST %s", path)

		st := reg.Stats()
		want := uint64(i + 1)
		assert.Equal(t, want, st.Requests, "POST %s: a change whose body could not be read is not counted", path)
		assert.Equal(t, want, st.Rejected, "POST %s: Stats outcomes do not add up to Requests", path)
	}
	assert.Equal(t, int64(1), reg.Knobs()[0].Value.Int(), "nothing was applied")
	assert.Empty(t, reg.Audit())
}
