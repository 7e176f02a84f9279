package client_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/examples/client"
)

// TestStatsInFlightAfterPanic: an attempt that panics (here go-redis on a
// nil context) and whose panic the caller recovers from, as an HTTP server
// does for a handler, is no longer in flight: Stats.InFlight stayed at 1 for
// the client's life, and the cluster's retry budget read it as a request a
// killed host would fail.
func TestStatsInFlightAfterPanic(t *testing.T) {
	addr := fakeRESP(t, func([]string) string { return "$-1\r\n" })
	c := routedClient(t, client.Config{PoolSize: 2}, addr)
	var nilCtx context.Context
	require.Panics(t, func() { _, _ = c.Get(nilCtx, "k") })
	st := c.Stats()
	require.Contains(t, st.InFlight, addr, "the attempt opened the host's pool")
	assert.Equal(t, 0, st.InFlight[addr], "the panicked attempt is over")
}
