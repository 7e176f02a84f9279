package client_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/examples/client"
	"github.com/tierkit/tierkit/hashring"
	"github.com/tierkit/tierkit/rollout"
)

// SetRoutes validates the routes it is given and prunes the pools of hosts
// they drop: a caller that changes its Gateways map afterwards, or the one
// Routes returns, must not change the routes in force behind that. Both
// maps were the client's own, so a ring put in them took over the region's
// requests unvalidated (and raced with the requests reading the map).
func TestRoutesGatewaysCopiedAtTheBoundary(t *testing.T) {
	c, err := client.New(client.Config{Service: "s", Region: "eu"})
	require.NoError(t, err)
	defer c.Close()
	flags, err := rollout.New(rollout.Config{Rules: []rollout.Rule{{Service: "s", Percent: 100}}})
	require.NoError(t, err)
	ringOf := func(id string) *hashring.Ring {
		r, err := hashring.New(hashring.Config{}, []hashring.Node{{ID: id, Weight: 1}})
		require.NoError(t, err)
		return r
	}
	const published = "127.0.0.1:1"
	gws := map[string]*hashring.Ring{"eu": ringOf(published)}
	require.NoError(t, c.SetRoutes(client.Routes{Gateways: gws, Rollout: flags, Draining: []string{"127.0.0.1:9"}}))
	route := func(when string) {
		t.Helper()
		tg, err := c.Route("k")
		require.NoError(t, err, when)
		require.Equal(t, published, tg.Host, when)
	}
	route("published")

	gws["eu"] = ringOf("127.0.0.1:2")
	route("after the caller's map changed")

	got, ok := c.Routes()
	require.True(t, ok)
	got.Gateways["eu"] = ringOf("127.0.0.1:3")
	got.Draining[0] = "127.0.0.1:4"
	route("after the map Routes returned changed")
	again, _ := c.Routes()
	require.Equal(t, published, again.Gateways["eu"].Nodes()[0].ID)
	require.Equal(t, []string{"127.0.0.1:9"}, again.Draining)
}
