package controlplane_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/examples/controlplane"
)

// TestNewDirectAddressNeedsHostPort: a direct shard address that is not
// host:port with a port to dial (-direct 127.0.0.1, the port forgotten; a
// space left by "-direct 'a:1, b:2'"; a redis:// URL; port 0) is refused by
// New, as a gateway's addresses are. It was published: every follower in
// direct mode sent that shard's keys to an address no dial reaches.
func TestNewDirectAddressNeedsHostPort(t *testing.T) {
	for _, addr := range []string{
		"127.0.0.1", " 127.0.0.1:7001", "redis://127.0.0.1:7001", "127.0.0.1:", "127.0.0.1:0",
	} {
		_, err := controlplane.New(controlplane.Config{
			Regions: []controlplane.Region{{Name: "eu"}},
			Direct:  []string{"127.0.0.1:7000", addr},
		})
		require.ErrorIs(t, err, controlplane.ErrInvalidConfig, "direct %q", addr)
		require.ErrorContains(t, err, "direct shard 1", "direct %q", addr)
	}
	_, err := controlplane.New(controlplane.Config{
		Regions: []controlplane.Region{{Name: "eu"}},
		Direct:  []string{"127.0.0.1:7000", "[::1]:7001", "shard-2.internal:7002"},
	})
	require.NoError(t, err)
}
