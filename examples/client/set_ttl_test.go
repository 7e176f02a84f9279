package client_test

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/examples/client"
)

// TestSetNegativeTTLRefused: a negative ttl is refused before anything is
// sent. go-redis sends -1ns as KEEPTTL and any other negative ttl as no
// expiry: a value meant to be expired already was stored for good.
func TestSetNegativeTTLRefused(t *testing.T) {
	var sent atomic.Int64
	addr := fakeRESP(t, func([]string) string { sent.Add(1); return "+OK\r\n" })
	c, err := client.New(client.Config{Service: "s", Region: "eu"})
	require.NoError(t, err)
	defer c.Close()
	require.NoError(t, c.SetRoutes(client.Routes{Direct: []string{addr}}))
	ctx := context.Background()
	for _, ttl := range []time.Duration{-1, -time.Second} {
		require.ErrorIs(t, c.Set(ctx, "k", "v", ttl), client.ErrBadTTL, "ttl %v", ttl)
	}
	require.Zero(t, sent.Load(), "nothing sent for a negative ttl")
	require.Zero(t, c.Stats().Failures, "a refused argument is not a host failure")
	require.NoError(t, c.Set(ctx, "k", "v", time.Second))
	require.Equal(t, int64(1), sent.Load())
}
