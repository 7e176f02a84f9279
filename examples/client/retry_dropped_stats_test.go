package client_test

import (
	"context"
	"net"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/examples/client"
	"github.com/tierkit/tierkit/hashring"
	"github.com/tierkit/tierkit/rollout"
)

// A retry whose host SetRoutes dropped while the first attempt ran sends
// nothing (the request fails with its first host's error): Stats.Retries,
// the requests retried on the next host, must not count it.
func TestRetryOnDroppedHostNotCounted(t *testing.T) {
	lnA, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer lnA.Close()
	lnB, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	hostA, hostB := lnA.Addr().String(), lnB.Addr().String()
	require.NoError(t, lnB.Close())

	c, err := client.New(client.Config{Service: "s", Region: "eu"})
	require.NoError(t, err)
	defer c.Close()
	flags, err := rollout.New(rollout.Config{Rules: []rollout.Rule{{Service: "s", Percent: 100}}})
	require.NoError(t, err)
	ring := func(ids ...string) *hashring.Ring {
		var nodes []hashring.Node
		for _, id := range ids {
			nodes = append(nodes, hashring.Node{ID: id, Weight: 1})
		}
		r, err := hashring.New(hashring.Config{}, nodes)
		require.NoError(t, err)
		return r
	}
	require.NoError(t, c.SetRoutes(client.Routes{Gateways: map[string]*hashring.Ring{"eu": ring(hostA, hostB)}, Rollout: flags}))
	key := ""
	for i := 0; key == ""; i++ {
		if tg, err := c.Route("k" + strconv.Itoa(i)); err == nil && tg.Host == hostA && tg.Next == hostB {
			key = "k" + strconv.Itoa(i)
		}
	}

	// A takes the command, the control plane drops B meanwhile, and A's
	// connection breaks: the retry host is gone, nothing is retried.
	served := make(chan error, 1)
	go func() {
		conn, err := lnA.Accept()
		if err != nil {
			served <- err
			return
		}
		_, err = conn.Read(make([]byte, 512))
		if err == nil {
			err = c.SetRoutes(client.Routes{Gateways: map[string]*hashring.Ring{"eu": ring(hostA)}, Rollout: flags})
		}
		conn.Close()
		served <- err
	}()
	_, err = c.Get(context.Background(), key)
	require.Error(t, err)
	require.NoError(t, <-served)

	st := c.Stats()
	require.NotContains(t, st.Hosts, hostB)
	require.Zero(t, st.Retries, "a retry that sent nothing was counted: %+v", st)
	require.EqualValues(t, 1, st.Failures, "%+v", st)
	require.EqualValues(t, 1, st.Gateway, "%+v", st)
}
