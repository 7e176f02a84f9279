package controlplane_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/examples/controlplane"
)

// A gateway's RESP and HTTP addresses were only checked for being non-empty:
// a RESP without a port was published in the ring (no client can dial it),
// and an HTTP address with a path ("127.0.0.1:6381/admin?x=") made the plane
// poll another URL than the gateway's /control/. Both are host:port now.
func TestAddGatewayRefusesBadAddresses(t *testing.T) {
	p, err := controlplane.New(controlplane.Config{Regions: []controlplane.Region{{Name: "eu"}},
		Poller: controlplane.PollerFunc(nil)})
	require.NoError(t, err)
	for _, tc := range []struct{ resp, http string }{
		{"gw-1", "127.0.0.1:8001"},
		{"127.0.0.1:6379", "127.0.0.1:6381/admin?x="},
		{"127.0.0.1:6379", "127.0.0.1"},
		{"127.0.0.1:http", "127.0.0.1:8001"},
		{"127.0.0.1:70000", "127.0.0.1:8001"},
		{":6379", "127.0.0.1:8001"},
		{"127.0.0.1:6379", "evil/x?:80"},
		{"127.0.0.1:6379", "user@host:80"},
	} {
		g := controlplane.Gateway{ID: "eu-1", Region: "eu", RESP: tc.resp, HTTP: tc.http, Cores: 1}
		var ge *controlplane.GatewayError
		require.ErrorAs(t, p.AddGateway(g), &ge, "RESP %q HTTP %q", tc.resp, tc.http)
	}
	require.Empty(t, p.Gateways())
	ok := controlplane.Gateway{ID: "eu-1", Region: "eu", RESP: "gw.example:6379", HTTP: "[::1]:8001", Cores: 1}
	require.NoError(t, p.AddGateway(ok))
}
