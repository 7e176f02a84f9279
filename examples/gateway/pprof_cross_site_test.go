package main

import (
	"io"
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestPprofRefusesCrossSite: a web page of any site can make an operator's
// browser send a GET to 127.0.0.1 (an img or a no-cors fetch, no preflight),
// with a Host /debug/pprof accepts: the Host guard stops a page from reading
// a profile, not from starting one. /debug/pprof/profile and /trace ran a CPU
// profile or an execution trace for as many seconds as the page asked (no
// WriteTimeout bounds them), holding the profiler from the operator. A
// request the browser marks cross-site or same-site (Sec-Fetch-Site) is
// refused; one typed in the address bar (none), from the index's own links
// (same-origin), or from a tool that sends no such header (go tool pprof,
// curl) is served.
func TestPprofRefusesCrossSite(t *testing.T) {
	in := startGateway(t, Config{})
	base := "http://" + in.httpLn.Addr().String()
	for _, path := range []string{"/debug/pprof/trace?seconds=0.001", "/debug/pprof/", "/debug/pprof/heap"} {
		for _, tc := range []struct {
			site string
			want int
		}{{"", http.StatusOK}, {"none", http.StatusOK}, {"same-origin", http.StatusOK},
			{"cross-site", http.StatusForbidden}, {"same-site", http.StatusForbidden}} {
			req, err := http.NewRequest(http.MethodGet, base+path, nil)
			require.NoError(t, err)
			req.Host = "127.0.0.1"
			if tc.site != "" {
				req.Header.Set("Sec-Fetch-Site", tc.site)
			}
			resp, err := http.DefaultClient.Do(req)
			require.NoError(t, err)
			_, _ = io.Copy(io.Discard, resp.Body)
			_ = resp.Body.Close()
			require.Equal(t, tc.want, resp.StatusCode, "%s with Sec-Fetch-Site %q", path, tc.site)
		}
	}
}
