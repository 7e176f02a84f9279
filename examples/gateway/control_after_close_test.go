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
