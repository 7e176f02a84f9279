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

// TestNewDirectAddressNamedOnce: a direct shard named twice, however spelled
// ("127.0.0.1:7000" and "127.0.0.1:07000"), is refused by New. It was
// published: followers weighted that server twice in their direct ring
// (two shards' keys on one server), and a gateway refuses such a list
// written alike, so no gateway's ring could match the direct one.
func TestNewDirectAddressNamedOnce(t *testing.T) {
	for _, direct := range [][]string{
		{"127.0.0.1:7000", "127.0.0.1:7001", "127.0.0.1:7000"},
		{"127.0.0.1:7000", "127.0.0.1:07000"},
		{"[::1]:7000", "[0:0:0:0:0:0:0:1]:7000"},
		{"Shard.internal:7000", "shard.internal:7000"},
	} {
		_, err := controlplane.New(controlplane.Config{Regions: []controlplane.Region{{Name: "eu"}}, Direct: direct})
		require.ErrorIs(t, err, controlplane.ErrInvalidConfig, "direct %q", direct)
		require.ErrorContains(t, err, "twice", "direct %q", direct)
	}
}
