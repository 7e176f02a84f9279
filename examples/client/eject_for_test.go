package client_test

import (
	"context"
	"math"
	"net"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/examples/client"
)

// An EjectFor that Config accepts ejects a failed host for that long, however
// long: the deadline past the year 2262 does not fit in Unix nanoseconds, and
// must not wrap to a date in the past that ejects nothing.
func TestHugeEjectForEjects(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	dead := ln.Addr().String()
	require.NoError(t, ln.Close()) // refuses: a killed host
	live := fakeRESP(t, func([]string) string { return "$1\r\nv\r\n" })
	for _, ejectFor := range []time.Duration{time.Hour, 250 * 365 * 24 * time.Hour, math.MaxInt64} {
		c := routedClient(t, client.Config{EjectFor: ejectFor}, dead, live)
		key := keyRouted(t, c, func(tg client.Target) bool { return tg.Host == dead })
		v, err := c.Get(context.Background(), key)
		require.NoError(t, err)
		require.Equal(t, "v", v)
		tg, err := c.Route(key)
		require.NoError(t, err)
		require.Equal(t, live, tg.Host, "EjectFor %v: the refusing host was not ejected", ejectFor)
		require.NoError(t, c.Close())
	}
}
