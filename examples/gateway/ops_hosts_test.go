package main

import (
	"io"
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestOpsHostsGuardMetricsAndPprof: /metrics and /debug/pprof, on the same
// listener as /control, refuse the Host names /control refuses. They answered
// any: a page of a domain an attacker resolves to 127.0.0.1 (DNS rebinding)
// read the gateway's metrics, goroutine stacks and heap profile from an
// operator's browser, and could hold the CPU profiler for as long as it
// liked, while /control refused it.
func TestOpsHostsGuardMetricsAndPprof(t *testing.T) {
	in := startGateway(t, Config{})
	for _, path := range []string{"/metrics", "/debug/pprof/", "/debug/pprof/goroutine?debug=2", "/debug/pprof/heap"} {
		for _, tc := range []struct {
			host string
			want int
		}{{"", http.StatusOK}, {"localhost:6381", http.StatusOK}, {"rebind.example:6381", http.StatusForbidden}} {
			req, err := http.NewRequest(http.MethodGet, "http://"+in.httpLn.Addr().String()+path, nil)
			require.NoError(t, err)
			if tc.host != "" {
				req.Host = tc.host
			}
			resp, err := http.DefaultClient.Do(req)
			require.NoError(t, err)
			_, _ = io.Copy(io.Discard, resp.Body)
			_ = resp.Body.Close()
			require.Equal(t, tc.want, resp.StatusCode, "%s with Host %q", path, tc.host)
		}
	}
}
