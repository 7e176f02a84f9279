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

// A request in flight when SetRoutes drops its hosts must not open a pool for
// a dropped host on its retry: nothing would ever close that pool (only a
// later publication prunes), so the client would keep connections to a host
// the control plane removed.
func TestRetryOpensNoPoolForDroppedHost(t *testing.T) {
	lnA, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer lnA.Close()
	lnB, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	hostA, hostB := lnA.Addr().String(), lnB.Addr().String()
	require.NoError(t, lnB.Close()) // B refuses: the retry fails fast

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

	// A takes the command, the control plane drops A and B meanwhile, and A's
	// connection breaks: the request retries on B, which is gone.
	served := make(chan error, 1)
	go func() {
		conn, err := lnA.Accept()
		if err != nil {
			served <- err
			return
		}
		_, err = conn.Read(make([]byte, 512))
		if err == nil {
			err = c.SetRoutes(client.Routes{Gateways: map[string]*hashring.Ring{"eu": ring("127.0.0.1:9")}, Rollout: flags})
		}
		conn.Close()
		served <- err
	}()
	_, err = c.Get(context.Background(), key)
	require.Error(t, err)
	require.NoError(t, <-served)

	st := c.Stats()
	require.NotContains(t, st.Hosts, hostB, "a pool was opened for a host no longer in the routes")
	require.NotContains(t, st.Hosts, hostA)
}
