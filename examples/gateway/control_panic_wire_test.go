package main

import (
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/control"
)

// TestControlPanicAnsweredOnTheWire: a /control change whose knob's Apply
// panics gets control's 500 apply_failed over a real connection. The gate
// wrote the answer it kept but did not flush it before the panic went on, and
// net/http drops a panicking handler's connection with what it buffered: the
// client read EOF (TestControlPanicReleasesGate, on a recorder, saw the
// answer).
func TestControlPanicAnsweredOnTheWire(t *testing.T) {
	in := startGateway(t, Config{})
	require.NoError(t, in.reg.RegisterInt(control.IntKnob{Name: "boom", Value: 1,
		Apply: func(int64) error { panic("component bug") }}))
	resp, err := http.Post("http://"+in.httpLn.Addr().String()+"/control/", "application/json",
		strings.NewReader(`{"who":"t","changes":[{"knob":"boom","value":2}]}`))
	require.NoError(t, err, "the client got no answer")
	body, _ := io.ReadAll(resp.Body)
	_ = resp.Body.Close()
	assert.Equal(t, http.StatusInternalServerError, resp.StatusCode, "%s", body)
	assert.Contains(t, string(body), `"apply_failed"`)
}
