package client_test

import (
	"context"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/examples/client"
	"github.com/tierkit/tierkit/hashring"
	"github.com/tierkit/tierkit/rollout"
)

// A gateway that is draining (SIGTERM) answers each connection it accepts
// with "-ERR server is shutting down" and closes it (examples/gateway's
// refuse): a request whose pool dials it then is the host going away, not
// the request refused, and goes to the next host like one reset by the
// drain. It was returned to the caller as a failure.
func TestShuttingDownGatewayRetried(t *testing.T) {
	draining := fakeRESP(t, func([]string) string { return "-ERR server is shutting down\r\n" })
	live := fakeRESP(t, func([]string) string { return "$1\r\nv\r\n" })
	flags, err := rollout.New(rollout.Config{Rules: []rollout.Rule{{Service: "s", Percent: 100}}})
	require.NoError(t, err)
	ring, err := hashring.New(hashring.Config{}, []hashring.Node{{ID: draining, Weight: 1}, {ID: live, Weight: 1}})
	require.NoError(t, err)
	c, err := client.New(client.Config{Service: "s", Region: "eu"})
	require.NoError(t, err)
	defer c.Close()
	require.NoError(t, c.SetRoutes(client.Routes{Gateways: map[string]*hashring.Ring{"eu": ring}, Rollout: flags}))
	key := ""
	for i := 0; key == ""; i++ {
		if tg, err := c.Route("k" + strconv.Itoa(i)); err == nil && tg.Host == draining {
			key = "k" + strconv.Itoa(i)
		}
	}
	v, err := c.Get(context.Background(), key)
	require.NoError(t, err)
	require.Equal(t, "v", v)
	st := c.Stats()
	require.Equal(t, uint64(1), st.Retries)
	require.Zero(t, st.Failures)
	tg, err := c.Route(key)
	require.NoError(t, err)
	require.Equal(t, live, tg.Host, "the shutting-down host was not ejected")
}
