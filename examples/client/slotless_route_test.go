package client_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/examples/client"
	"github.com/tierkit/tierkit/hashring"
	"github.com/tierkit/tierkit/rollout"
)

// A member too light for one slot owns no key and is never a replica, but
// Route counted it as a host still to look at: with fewer usable owners than
// members it walked the whole replica order (a slice of ring.Len() per request)
// although the short draw had returned every owner already. With one owner
// among slotless members that was every request, nothing out; with two owners
// and one draining, every request for the draining owner's keys.
func TestRouteSlotlessMembersDoNotAllocate(t *testing.T) {
	flags, err := rollout.New(rollout.Config{Rules: []rollout.Rule{{Service: "s", Percent: 100}}})
	require.NoError(t, err)
	for _, tc := range []struct {
		owners   []string
		draining []string
		host     string
	}{
		{owners: []string{"127.0.0.1:7000"}, host: "127.0.0.1:7000"},
		{owners: []string{"127.0.0.1:7000", "127.0.0.1:7001"}, draining: []string{"127.0.0.1:7000"}, host: "127.0.0.1:7001"},
	} {
		var nodes []hashring.Node
		for _, id := range tc.owners {
			nodes = append(nodes, hashring.Node{ID: id, Weight: 1})
		}
		for i := range 6 {
			nodes = append(nodes, hashring.Node{ID: fmt.Sprintf("127.0.0.2:%d", 7000+i), Weight: 1e-12})
		}
		ring, err := hashring.New(hashring.Config{Slots: 1 << 8}, nodes)
		require.NoError(t, err)
		c, err := client.New(client.Config{Service: "s", Region: "eu"})
		require.NoError(t, err)
		require.NoError(t, c.SetRoutes(client.Routes{Gateways: map[string]*hashring.Ring{"eu": ring}, Rollout: flags, Draining: tc.draining}))
		for i := range 50 {
			key := fmt.Sprint("k", i)
			tg, err := c.Route(key)
			require.NoError(t, err)
			require.Equal(t, tc.host, tg.Host, "key %q", key)
			require.Empty(t, tg.Next, "key %q: no other host owns a key", key)
			allocs := testing.AllocsPerRun(20, func() { _, _ = c.Route(key) })
			require.Zero(t, allocs, "%d owners, draining %v, key %q", len(tc.owners), tc.draining, key)
		}
		c.Close()
	}
}
