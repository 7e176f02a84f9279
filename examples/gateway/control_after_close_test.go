package main

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestControlChangeRefusedAfterClose: a /control change that arrives once the
// gateway has closed (Shutdown closes the RESP server and the gateway before
// the HTTP server) is refused with 503 and changes nothing. It was applied to
// the closed batcher, shedder and limiter, answered 200 and audited as if it
// steered a gateway that no longer serves.
func TestControlChangeRefusedAfterClose(t *testing.T) {
	in := startGateway(t, Config{})
	base := "http://" + in.httpLn.Addr().String() + "/control/"
	linger := in.gw.batches.Config().Linger
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	require.NoError(t, in.srv.Shutdown(ctx)) // the window before the HTTP server's Shutdown

	for _, tc := range []struct{ path, body string }{
		{"", `{"who":"test","changes":[{"knob":"batcher.linger","value":"3ms"},{"knob":"shed.max_queue","value":10}]}`},
		{"rollback", `{"who":"test"}`},
	} {
		resp, err := http.Post(base+tc.path, "application/json", strings.NewReader(tc.body))
		require.NoError(t, err)
		body, _ := io.ReadAll(resp.Body)
		_ = resp.Body.Close()
		assert.Equal(t, http.StatusServiceUnavailable, resp.StatusCode, "POST /control/%s: %s", tc.path, body)
		assert.Contains(t, string(body), `"shutting_down"`)
		assert.Equal(t, linger, in.gw.batches.Config().Linger, "POST /control/%s: the closed batcher's linger changed", tc.path)
		assert.NotEqual(t, 10, in.gw.shedder.Config().MaxQueue, "POST /control/%s: the closed shedder's max_queue changed", tc.path)
	}
	assert.Empty(t, in.reg.Audit(), "a refused change is not audited")

	resp, err := http.Get(base)
	require.NoError(t, err)
	_ = resp.Body.Close()
	assert.Equal(t, http.StatusOK, resp.StatusCode, "the state is still served until the HTTP server stops")
}

// TestControlHostCheckedBeforeShutdownRefusal: once the gateway closed, a
// /control change from a Host /control does not answer to was refused 503
// shutting_down, not 403: the gate answered before control's Host check, so
// a page reaching it by DNS rebinding learned that the gateway was shutting
// down (found by a review). The Host is checked first now, and a POST that
// is no change (an unknown path) gets control's own answer.
func TestControlHostCheckedBeforeShutdownRefusal(t *testing.T) {
	in := startGateway(t, Config{})
	base := "http://" + in.httpLn.Addr().String() + "/control/"
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	require.NoError(t, in.srv.Shutdown(ctx)) // the window before the HTTP server's Shutdown

	for _, tc := range []struct {
		host, path string
		want       int
	}{
		{"evil.example", "", http.StatusForbidden},
		{"evil.example", "rollback", http.StatusForbidden},
		{"", "nowhere", http.StatusNotFound},
		{"", "", http.StatusServiceUnavailable},
	} {
		req, err := http.NewRequest(http.MethodPost, base+tc.path, strings.NewReader(`{"who":"test"}`))
		require.NoError(t, err)
		req.Header.Set("Content-Type", "application/json")
		if tc.host != "" {
			req.Host = tc.host
		}
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		body, _ := io.ReadAll(resp.Body)
		_ = resp.Body.Close()
		assert.Equal(t, tc.want, resp.StatusCode, "POST /control/%s Host %q: %s", tc.path, tc.host, body)
	}
	assert.Empty(t, in.reg.Audit(), "a refused change is not audited")
}
