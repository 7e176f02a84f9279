package main

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/control"
)

// A /control change whose knob's Apply panics (control undoes the batch and
// lets the panic go on; net/http recovers it and serves on) left ctlMu held
// for reading: gateControl unlocked it only on return. Close, which takes
// ctlMu to mark the gateway closing, then waited for good, and so did
// Shutdown. And the client gets control's 500 apply_failed answer, which
// the gate kept in its buffer and dropped when the panic went on.
func TestControlPanicReleasesGate(t *testing.T) {
	reg, err := control.New(control.Config{})
	require.NoError(t, err)
	require.NoError(t, reg.RegisterInt(control.IntKnob{Name: "boom", Value: 1,
		Apply: func(int64) error { panic("component bug") }}))
	g := &Gateway{}
	h := g.gateControl(control.Config{}, reg.Handler())

	hr := httptest.NewRequest(http.MethodPost, "/", strings.NewReader(`{"who":"t","changes":[{"knob":"boom","value":2}]}`))
	hr.Header.Set("Content-Type", "application/json")
	rw := httptest.NewRecorder()
	require.PanicsWithValue(t, "component bug", func() { h.ServeHTTP(rw, hr) })
	// control answered before the panic went on; the gate kept that answer
	// in its buffer and dropped it, so the client saw a dropped connection.
	assert.Equal(t, http.StatusInternalServerError, rw.Code)
	assert.Contains(t, rw.Body.String(), `"apply_failed"`)
	assert.Contains(t, rw.Body.String(), "component bug")

	locked := g.ctlMu.TryLock()
	assert.True(t, locked, "the panicked change still holds ctlMu: Close would wait for good")
	if locked {
		g.ctlMu.Unlock()
	}
}
