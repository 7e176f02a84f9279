package client_test

import (
	"context"
	"net"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/examples/client"
)

// countingRESP serves RESP on ln (see fakeRESP) and counts the commands
// naming key it answers: the requests of a client that reached it. Not the
// connections it accepts: another test process on the machine whose client
// still dials a port it used, now reused for ln, may connect too (a CI run
// saw one such connection). It stops at cleanup.
func countingRESP(t *testing.T, ln net.Listener, key, reply string) *atomic.Int32 {
	t.Helper()
	var served atomic.Int32
	done := make(chan struct{})
	t.Cleanup(func() { _ = ln.Close(); <-done })
	go func() {
		defer close(done)
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			go serveRESP(conn, func(args []string) string {
				if len(args) > 1 && args[1] == key {
					served.Add(1)
				}
				return reply
			})
		}
	}()
	return &served
}

// go-redis stops dialing a host once its pool has failed PoolSize dials
// (counted over the pool's life until its probe connects) and fails at
// once with the last dial error until its background probe, once a second,
// connects. A host that comes back is then still refused by its own pool:
// the doc says so, and this test notices if a go-redis upgrade changes it.
func TestHostBackRefusedUntilPoolProbe(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := ln.Addr().String()
	require.NoError(t, ln.Close()) // refuses: a restarting shard

	c, err := client.New(client.Config{Service: "s", Region: "eu", PoolSize: 1})
	require.NoError(t, err)
	defer c.Close()
	require.NoError(t, c.SetRoutes(client.Routes{Direct: []string{addr}}))
	start := time.Now()
	_, err = c.Get(context.Background(), "{client-dial-breaker}k")
	require.ErrorIs(t, err, syscall.ECONNREFUSED)

	ln, err = net.Listen("tcp", addr) // the shard is back on its address
	if err != nil {
		t.Skipf("the address was taken meanwhile: %v", err)
	}
	served := countingRESP(t, ln, "{client-dial-breaker}k", "$1\r\nv\r\n")
	before := c.Stats().Retries
	_, err = c.Get(context.Background(), "{client-dial-breaker}k")
	if time.Since(start) >= time.Second {
		t.Skip("too slow: the pool's probe may have run")
	}
	assert.ErrorIs(t, err, syscall.ECONNREFUSED, "the pool dialed the host again")
	assert.Zero(t, served.Load(), "the pool dialed the host again")
	assert.Equal(t, before+1, c.Stats().Retries, "the refusal was not retried")

	// Its probe connects within about a second: the host serves again.
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		if v, err := c.Get(context.Background(), "{client-dial-breaker}k"); err == nil {
			assert.Equal(t, "v", v)
			return
		}
		time.Sleep(10 * time.Millisecond) // polling a condition, bounded by deadline
	}
	t.Fatal("the host was not served again within 5 s of coming back")
}
