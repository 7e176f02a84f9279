package main

import (
	"net"
	"net/http"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/internal/leak"
)

// TestPlaneAnswersItsIPv4MappedAddress: -http may be given as the
// IPv4-mapped form of a loopback address ([::ffff:127.0.0.2]:7070); the
// plane listens on 127.0.0.2, which it answers as its own address, but
// compared the Host as a string: its URL written as given, or as a browser
// writes it ([::ffff:7f00:2]), answered 403. It is compared as an address.
func TestPlaneAnswersItsIPv4MappedAddress(t *testing.T) {
	leak.Check(t)
	probe, err := net.Listen("tcp", "127.0.0.2:0")
	if err != nil {
		t.Skipf("127.0.0.2 is not a local address here: %v", err)
	}
	_ = probe.Close()
	spec := DefaultSpec()
	spec.HTTP = "[::ffff:127.0.0.2]:0"
	c := &Cluster{Spec: spec.withDefaults(), Shards: []string{"127.0.0.1:1"}, hc: &http.Client{Timeout: 2 * time.Second}}
	require.NoError(t, c.listen())
	require.NoError(t, c.startPlane())
	defer c.Close()
	port := c.ln.Addr().(*net.TCPAddr).Port
	for _, tc := range []struct {
		host string
		want int
	}{
		{net.JoinHostPort("::ffff:127.0.0.2", strconv.Itoa(port)), http.StatusOK},
		{net.JoinHostPort("::ffff:7f00:2", strconv.Itoa(port)), http.StatusOK},
		{net.JoinHostPort("::ffff:127.0.0.3", strconv.Itoa(port)), http.StatusForbidden},
	} {
		req, err := http.NewRequest(http.MethodGet, c.PlaneURL+"/api/state", nil)
		require.NoError(t, err)
		req.Host = tc.host
		resp, err := c.hc.Do(req)
		require.NoError(t, err)
		_ = resp.Body.Close()
		require.Equal(t, tc.want, resp.StatusCode, "Host %q", tc.host)
	}
}
