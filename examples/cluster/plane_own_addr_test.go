package main

import (
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/examples/internal/loophost/loophosttest"
	"github.com/tierkit/tierkit/internal/leak"
)

// TestPlaneAnswersItsOwnLoopbackAddress: -http takes any loopback address,
// but the plane answered the Host names localhost, 127.0.0.1 and ::1 only,
// so on another one (127.0.0.2, a second cluster beside one on 127.0.0.1's
// port) it refused with 403 the URL the cluster prints for its dashboard,
// and the load's clients, which follow that URL's /api/routes, never got
// routes: the cluster did not start. The plane answers its own address too.
func TestPlaneAnswersItsOwnLoopbackAddress(t *testing.T) {
	c := startPlaneOnLoopback(t, "127.0.0.2:0")
	for _, path := range []string{"/", "/api/state", "/api/routes"} {
		requirePlaneStatus(t, c, path, "", http.StatusOK)
	}
	// Still not any Host: a rebound name is refused.
	requirePlaneStatus(t, c, "/api/state", "rebound.example", http.StatusForbidden)
}

// startPlaneOnLoopback starts the plane of a cluster whose -http is
// httpAddr, a form of the loopback address 127.0.0.2, and checks for leaked
// goroutines once the test has closed it. The test is skipped where
// 127.0.0.2 is not local.
func startPlaneOnLoopback(t *testing.T, httpAddr string) *Cluster {
	t.Helper()
	leak.Check(t)
	loophosttest.SkipUnlessLocal(t, "127.0.0.2")
	spec := DefaultSpec()
	spec.HTTP = httpAddr
	c := &Cluster{Spec: spec.withDefaults(), Shards: []string{"127.0.0.1:1"}, hc: &http.Client{Timeout: 2 * time.Second}}
	require.NoError(t, c.listen())
	require.NoError(t, c.startPlane())
	t.Cleanup(c.Close)
	return c
}

// requirePlaneStatus GETs path from c's plane with the Host header host
// ("" keeps the plane's URL's) and requires the status want.
func requirePlaneStatus(t *testing.T, c *Cluster, path, host string, want int) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, c.PlaneURL+path, nil)
	require.NoError(t, err)
	if host != "" {
		req.Host = host
	}
	resp, err := c.hc.Do(req)
	require.NoError(t, err)
	_ = resp.Body.Close()
	require.Equal(t, want, resp.StatusCode, "GET %s%s Host %q", c.PlaneURL, path, host)
}
