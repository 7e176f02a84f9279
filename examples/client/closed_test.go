package client_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/examples/client"
	"github.com/tierkit/tierkit/hashring"
	"github.com/tierkit/tierkit/rollout"
)

// After Close, a request fails with ErrClosed before anything is sent, yet it
// is counted as a retry (and its retry as an attempt on a "next host").
func TestClosedClientCountsNoRetry(t *testing.T) {
	c, err := client.New(client.Config{Service: "s", Region: "eu"})
	require.NoError(t, err)
	require.NoError(t, c.SetRoutes(client.Routes{Direct: []string{"127.0.0.1:1"}}))
	require.NoError(t, c.Close())
	_, err = c.Get(context.Background(), "k")
	require.ErrorIs(t, err, client.ErrClosed)
	st := c.Stats()
	require.Zero(t, st.Retries, "a closed client retried: %+v", st)
}

// Every request method of a closed client returns ErrClosed, whatever the
// routes in force: none published, or ones that give the request no host.
func TestClosedClientReturnsErrClosed(t *testing.T) {
	ctx := context.Background()
	for _, routes := range []*client.Routes{nil, {}} {
		c, err := client.New(client.Config{Service: "s", Region: "eu"})
		require.NoError(t, err)
		if routes != nil {
			require.NoError(t, c.SetRoutes(*routes))
		}
		require.NoError(t, c.Close())
		_, err = c.Get(ctx, "k")
		require.ErrorIs(t, err, client.ErrClosed, "Get, routes %v", routes)
		require.ErrorIs(t, c.Set(ctx, "k", "v", 0), client.ErrClosed, "Set, routes %v", routes)
		_, err = c.Del(ctx, "k")
		require.ErrorIs(t, err, client.ErrClosed, "Del, routes %v", routes)
		_, err = c.MGet(ctx, "k", "l")
		require.ErrorIs(t, err, client.ErrClosed, "MGet, routes %v", routes)
		_, err = c.Route("k")
		require.ErrorIs(t, err, client.ErrClosed, "Route, routes %v", routes)
	}
}

// A request in flight when Close runs fails at once with ErrClosed, even
// when it has no other host to go on to, rather than with the error of the
// connection Close broke.
func TestCloseFailsRequestInFlightWithErrClosed(t *testing.T) {
	got, release := make(chan struct{}), make(chan struct{})
	defer close(release)
	addr := fakeRESP(t, func([]string) string {
		got <- struct{}{}
		<-release
		return "$1\r\nv\r\n"
	})
	flags, err := rollout.New(rollout.Config{Rules: []rollout.Rule{{Service: "s", Percent: 100}}})
	require.NoError(t, err)
	ring, err := hashring.New(hashring.Config{}, []hashring.Node{{ID: addr, Weight: 1}})
	require.NoError(t, err)
	c, err := client.New(client.Config{Service: "s", Region: "eu"})
	require.NoError(t, err)
	require.NoError(t, c.SetRoutes(client.Routes{Gateways: map[string]*hashring.Ring{"eu": ring}, Rollout: flags}))
	done := make(chan error, 1)
	go func() {
		_, err := c.Get(context.Background(), "k")
		done <- err
	}()
	<-got
	require.NoError(t, c.Close())
	require.ErrorIs(t, <-done, client.ErrClosed)
}
