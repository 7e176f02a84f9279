package client_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/examples/client"
)

// A gateway that is draining (SIGTERM) answers each connection it accepts
// with "-ERR server is shutting down" and closes it (examples/gateway's
// refuse): a request whose pool dials it then is the host going away, not
// the request refused, and goes to the next host like one reset by the
// drain. It was returned to the caller as a failure.
func TestShuttingDownGatewayRetried(t *testing.T) {
	draining := fakeRESP(t, func([]string) string { return "-ERR server is shutting down\r\n" })
	live := fakeRESP(t, func([]string) string { return "$1\r\nv\r\n" })
	c := routedClient(t, client.Config{}, draining, live)
	key := keyRouted(t, c, func(tg client.Target) bool { return tg.Host == draining })
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
