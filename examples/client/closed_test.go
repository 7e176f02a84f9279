package client_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/examples/client"
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
