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

// An MGet group whose retry host was ejected by an earlier group of the call
// must retry on the next host of its keys' replica order, as a later request
// does: only a group whose own host was ejected was routed again, so this
// one's retry went to the ejected host, paying a failed attempt (a dial
// timeout on a host that drops packets) and failing the call.
func TestMGetGroupRetryAvoidsHostEjectedByEarlierGroup(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	dead := ln.Addr().String()
	require.NoError(t, ln.Close()) // refuses: the first group's attempt fails at once
	nulls := func(args []string) string {
		return "*" + strconv.Itoa(len(args)-1) + "\r\n" + strings.Repeat("$-1\r\n", len(args)-1)
	}
	// loading answers as a gateway whose shard is loading: retried, not ejected.
	loading := fakeRESP(t, func([]string) string { return "-LOADING Redis is loading the dataset in memory\r\n" })
	b := fakeRESP(t, nulls)
	c := routedClient(t, client.Config{}, dead, loading, b)
	k1 := keyRouted(t, c, func(tg client.Target) bool { return tg.Host == dead && tg.Next == b })
	k2 := keyRouted(t, c, func(tg client.Target) bool { return tg.Host == loading && tg.Next == dead })

	got, err := c.MGet(context.Background(), k1, k2)
	require.NoError(t, err)
	require.Equal(t, make([]client.Value, 2), got)
	st := c.Stats()
	require.EqualValues(t, 1, st.Hosts[dead], "attempts on the dead host: %+v", st)
	require.EqualValues(t, 2, st.Hosts[b], "k1's retry and k2's: %+v", st)
	require.EqualValues(t, 2, st.Retries, "%+v", st)
	require.EqualValues(t, 0, st.Skipped, "k2's owner was not skipped: %+v", st)
	require.EqualValues(t, 2, st.Gateway, "%+v", st)
	require.Zero(t, st.Failures)
}
