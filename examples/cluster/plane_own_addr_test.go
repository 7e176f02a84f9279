package main

import (
	"net"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/internal/leak"
)

// TestPlaneAnswersItsOwnLoopbackAddress: -http takes any loopback address,
// but the plane answered the Host names localhost, 127.0.0.1 and ::1 only,
// so on another one (127.0.0.2, a second cluster beside one on 127.0.0.1's
// port) it refused with 403 the URL the cluster prints for its dashboard,
// and the load's clients, which follow that URL's /api/routes, never got
// routes: the cluster did not start. The plane answers its own address too.
func TestPlaneAnswersItsOwnLoopbackAddress(t *testing.T) {
	leak.Check(t)
	probe, err := net.Listen("tcp", "127.0.0.2:0")
	if err != nil {
		t.Skipf("127.0.0.2 is not a local address here: %v", err)
	}
	_ = probe.Close()
	spec := DefaultSpec()
	spec.HTTP = "127.0.0.2:0"
	c := &Cluster{Spec: spec.withDefaults(), Shards: []string{"127.0.0.1:1"}, hc: &http.Client{Timeout: 2 * time.Second}}
	require.NoError(t, c.listen())
	require.NoError(t, c.startPlane())
	defer c.Close()
	for _, path := range []string{"/", "/api/state", "/api/routes"} {
		resp, err := c.hc.Get(c.PlaneURL + path)
		require.NoError(t, err)
		_ = resp.Body.Close()
		require.Equal(t, http.StatusOK, resp.StatusCode, "GET %s%s", c.PlaneURL, path)
	}
	// Still not any Host: a rebound name is refused.
	req, err := http.NewRequest(http.MethodGet, c.PlaneURL+"/api/state", nil)
	require.NoError(t, err)
	req.Host = "rebound.example"
	resp, err := c.hc.Do(req)
	require.NoError(t, err)
	_ = resp.Body.Close()
	require.Equal(t, http.StatusForbidden, resp.StatusCode)
}
