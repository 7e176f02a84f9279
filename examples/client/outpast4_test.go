package client_test

import (
	"fmt"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/examples/client"
	"github.com/tierkit/tierkit/hashring"
	"github.com/tierkit/tierkit/rollout"
)

// With more hosts out than the four candidates route looks at, a key whose
// first four replicas are all draining went to its draining owner (and retried
// on another draining host) although usable hosts were left in the ring: the
// Draining doc sends it on to the next host of its replica order.
func TestDrainingBeyondFourCandidatesSkipped(t *testing.T) {
	var nodes []hashring.Node
	for i := range 6 {
		nodes = append(nodes, hashring.Node{ID: fmt.Sprintf("127.0.0.1:%d", 7000+i), Weight: 1})
	}
	ring, err := hashring.New(hashring.Config{}, nodes)
	require.NoError(t, err)
	draining := []string{nodes[0].ID, nodes[1].ID, nodes[2].ID, nodes[3].ID}
	flags, err := rollout.New(rollout.Config{Rules: []rollout.Rule{{Service: "s", Percent: 100}}})
	require.NoError(t, err)
	c, err := client.New(client.Config{Service: "s", Region: "eu"})
	require.NoError(t, err)
	defer c.Close()
	require.NoError(t, c.SetRoutes(client.Routes{Gateways: map[string]*hashring.Ring{"eu": ring}, Rollout: flags, Draining: draining}))
	for i := range 2000 {
		key := fmt.Sprint("k", i)
		tg, err := c.Route(key)
		require.NoError(t, err)
		require.False(t, slices.Contains(draining, tg.Host), "key %q sent to draining %s", key, tg.Host)
		require.NotEmpty(t, tg.Next, "key %q has no retry host", key)
		require.False(t, slices.Contains(draining, tg.Next), "key %q retries on draining %s", key, tg.Next)
	}
}
