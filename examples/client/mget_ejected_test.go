package client_test

import (
	"context"
	"net"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/examples/client"
)

// An MGet routes every key before it sends its first group. When its first
// group fails on the keys' owner, that host is ejected, and a later group of
// the same call routed to it must go to its next host up front, as a later
// request does: it was sent to the ejected host too, paying one failed
// attempt per group (a dial timeout each on a host that drops packets).
func TestMGetGroupAvoidsHostEjectedByEarlierGroup(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	dead := ln.Addr().String()
	require.NoError(t, ln.Close()) // refuses: the first group's attempt fails at once
	nulls := func(args []string) string {
		return "*" + strconv.Itoa(len(args)-1) + "\r\n" + strings.Repeat("$-1\r\n", len(args)-1)
	}
	b, d := fakeRESP(t, nulls), fakeRESP(t, nulls)
	c := routedClient(t, client.Config{}, dead, b, d)
	k1 := keyRouted(t, c, func(tg client.Target) bool { return tg.Host == dead && tg.Next == b })
	k2 := keyRouted(t, c, func(tg client.Target) bool { return tg.Host == dead && tg.Next == d })

	got, err := c.MGet(context.Background(), k1, k2)
	require.NoError(t, err)
	require.Equal(t, make([]client.Value, 2), got)
	st := c.Stats()
	require.EqualValues(t, 1, st.Hosts[dead], "attempts on the dead host: %+v", st)
	require.EqualValues(t, 1, st.Retries, "%+v", st)
	require.EqualValues(t, 1, st.Skipped, "k2 went past its ejected owner: %+v", st)
	require.EqualValues(t, 2, st.Gateway, "%+v", st)
	require.Zero(t, st.Failures)
}
