package client_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/examples/client"
	"github.com/tierkit/tierkit/hashring"
	"github.com/tierkit/tierkit/rollout"
)

// FuzzRoute checks the routing invariants for any key: a gateway target is a
// member of the serving region's ring with a distinct retry host, a direct
// target is one of the shards and retries on itself, and a key's path never
// leaves the gateway when the rollout percentage rises.
func FuzzRoute(f *testing.F) {
	for _, k := range []string{"", "user:", "user:1", "{user:1}:x", "photo:9", "user:{}", "{"} {
		f.Add(k, uint8(37))
	}
	ring, err := hashring.New(hashring.Config{}, []hashring.Node{{ID: "127.0.0.1:1", Weight: 1}, {ID: "127.0.0.1:2", Weight: 3}, {ID: "127.0.0.1:3", Weight: 2}})
	require.NoError(f, err)
	shards := []string{"127.0.0.1:11", "127.0.0.1:12", "127.0.0.1:13"}
	f.Fuzz(func(t *testing.T, key string, pct uint8) {
		p := float64(pct % 101)
		var paths []client.Path
		for _, percent := range []float64{p, 100} {
			fl, err := rollout.New(rollout.Config{Rules: []rollout.Rule{{Service: "svc", Prefix: "user:", Percent: percent}}})
			require.NoError(t, err)
			c, err := client.New(client.Config{Service: "svc", Region: "a"})
			require.NoError(t, err)
			require.NoError(t, c.SetRoutes(client.Routes{Gateways: map[string]*hashring.Ring{"a": ring}, Rollout: fl, Direct: shards}))
			tg, err := c.Route(key)
			require.NoError(t, err)
			switch tg.Path {
			case client.PathGateway:
				require.True(t, ring.Contains(tg.Host))
				require.True(t, ring.Contains(tg.Next))
				require.NotEqual(t, tg.Host, tg.Next)
			case client.PathDirect:
				require.Contains(t, shards, tg.Host)
				require.Equal(t, tg.Host, tg.Next)
			default:
				t.Fatalf("path %v", tg.Path)
			}
			paths = append(paths, tg.Path)
			require.NoError(t, c.Close())
		}
		if paths[0] == client.PathGateway {
			require.Equal(t, client.PathGateway, paths[1], "raising the percentage moved %q off the gateway", key)
		}
	})
}
