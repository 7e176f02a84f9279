package client_test

import (
	"context"
	"math"
	"net"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/examples/client"
	"github.com/tierkit/tierkit/hashring"
	"github.com/tierkit/tierkit/rollout"
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
	flags, err := rollout.New(rollout.Config{Rules: []rollout.Rule{{Service: "s", Percent: 100}}})
	require.NoError(t, err)
	ring, err := hashring.New(hashring.Config{}, []hashring.Node{{ID: dead, Weight: 1}, {ID: live, Weight: 1}})
	require.NoError(t, err)
	for _, ejectFor := range []time.Duration{time.Hour, 250 * 365 * 24 * time.Hour, math.MaxInt64} {
		c, err := client.New(client.Config{Service: "s", Region: "eu", EjectFor: ejectFor})
		require.NoError(t, err)
		require.NoError(t, c.SetRoutes(client.Routes{Gateways: map[string]*hashring.Ring{"eu": ring}, Rollout: flags}))
		key := ""
		for i := 0; key == ""; i++ {
			if tg, err := c.Route("k" + strconv.Itoa(i)); err == nil && tg.Host == dead {
				key = "k" + strconv.Itoa(i)
			}
		}
		v, err := c.Get(context.Background(), key)
		require.NoError(t, err)
		require.Equal(t, "v", v)
		tg, err := c.Route(key)
		require.NoError(t, err)
		require.Equal(t, live, tg.Host, "EjectFor %v: the refusing host was not ejected", ejectFor)
		require.NoError(t, c.Close())
	}
}
