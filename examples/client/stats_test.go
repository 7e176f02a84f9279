package client_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/examples/client"
)

// A call that fails before anything is sent (no routes yet, routes that give
// the key no host) is a failure like any other: an operator watching
// Stats.Failures must see a publication that leaves requests nowhere to go.
// Client.Route, which sends nothing, counts nothing.
func TestRoutingFailuresCounted(t *testing.T) {
	ctx := context.Background()
	c, err := client.New(client.Config{Service: "s", Region: "eu"})
	require.NoError(t, err)
	defer c.Close()
	_, err = c.Get(ctx, "k")
	require.ErrorIs(t, err, client.ErrNoRoutes)
	require.NoError(t, c.SetRoutes(client.Routes{})) // direct path, no shards
	require.ErrorIs(t, c.Set(ctx, "k", "v", 0), client.ErrNoHost)
	_, err = c.MGet(ctx, "k", "l")
	require.ErrorIs(t, err, client.ErrNoHost)
	_, err = c.Route("k")
	require.ErrorIs(t, err, client.ErrNoHost)
	st := c.Stats()
	require.EqualValues(t, 3, st.Failures, "%+v", st)
	require.Zero(t, st.Direct+st.Gateway+st.Retries, "%+v", st)
}
