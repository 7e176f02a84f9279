package client_test

import (
	"net"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/examples/client"
	"github.com/tierkit/tierkit/hashring"
	"github.com/tierkit/tierkit/rollout"
)

// retryRig is a client of service "s" in region eu, every key through the
// gateways, over host A (listening, the test serves it) and host B (closed:
// a retry there fails fast), and a key whose first host is A and whose retry
// host is B.
type retryRig struct {
	c            *client.Client
	lnA          net.Listener
	hostA, hostB string
	key          string
	// routes are the client's routes over the hosts ids.
	routes func(ids ...string) client.Routes
}

func newRetryRig(t *testing.T) *retryRig {
	t.Helper()
	lnA, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	t.Cleanup(func() { _ = lnA.Close() })
	lnB, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	r := &retryRig{lnA: lnA, hostA: lnA.Addr().String(), hostB: lnB.Addr().String()}
	require.NoError(t, lnB.Close())

	r.c, err = client.New(client.Config{Service: "s", Region: "eu"})
	require.NoError(t, err)
	t.Cleanup(func() { _ = r.c.Close() })
	flags, err := rollout.New(rollout.Config{Rules: []rollout.Rule{{Service: "s", Percent: 100}}})
	require.NoError(t, err)
	r.routes = func(ids ...string) client.Routes {
		var nodes []hashring.Node
		for _, id := range ids {
			nodes = append(nodes, hashring.Node{ID: id, Weight: 1})
		}
		ring, err := hashring.New(hashring.Config{}, nodes)
		require.NoError(t, err)
		return client.Routes{Gateways: map[string]*hashring.Ring{"eu": ring}, Rollout: flags}
	}
	require.NoError(t, r.c.SetRoutes(r.routes(r.hostA, r.hostB)))
	for i := 0; r.key == ""; i++ {
		if tg, err := r.c.Route("k" + strconv.Itoa(i)); err == nil && tg.Host == r.hostA && tg.Next == r.hostB {
			r.key = "k" + strconv.Itoa(i)
		}
	}
	return r
}

// breakAfterRead serves A's first connection: it reads the command, calls
// meanwhile (a change of routes while the request is in flight), and closes
// the connection, so that the request retries; the result is meanwhile's
// error, or the accept's or the read's.
func (r *retryRig) breakAfterRead(meanwhile func() error) <-chan error {
	served := make(chan error, 1)
	go func() {
		conn, err := r.lnA.Accept()
		if err != nil {
			served <- err
			return
		}
		_, err = conn.Read(make([]byte, 512))
		if err == nil {
			err = meanwhile()
		}
		_ = conn.Close()
		served <- err
	}()
	return served
}
