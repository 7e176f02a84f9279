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
// Shutdown.
func TestControlPanicReleasesGate(t *testing.T) {
	reg, err := control.New(control.Config{})
	require.NoError(t, err)
	require.NoError(t, reg.RegisterInt(control.IntKnob{Name: "boom", Value: 1,
		Apply: func(int64) error { panic("component bug") }}))
	g := &Gateway{}
	h := g.gateControl(reg.Handler())

	hr := httptest.NewRequest(http.MethodPost, "/", strings.NewReader(`{"who":"t","changes":[{"knob":"boom","value":2}]}`))
	hr.Header.Set("Content-Type", "application/json")
	require.PanicsWithValue(t, "component bug", func() { h.ServeHTTP(httptest.NewRecorder(), hr) })

	locked := g.ctlMu.TryLock()
	assert.True(t, locked, "the panicked change still holds ctlMu: Close would wait for good")
	if locked {
		g.ctlMu.Unlock()
	}
}
