package main

import (
	"bufio"
	"context"
	"errors"
	"net"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestAuthTimeout: where every tenant must AUTH, a connection that has not
// authenticated within auth_timeout is closed, whatever it sends meanwhile
// (a slow TLS handshake or a PING every few seconds held a slot of
// max_conns for idle_timeout, 5 minutes by default, from a client that
// knows no password); one that authenticated in time lives on to
// idle_timeout, and a gateway with an open default tenant is unaffected.
// Found by a review.
func TestAuthTimeout(t *testing.T) {
	const authTimeout = 300 * time.Millisecond
	tenants := []TenantConfig{{Name: "shop", Password: "p"}}
	in := startGateway(t, Config{HTTPAddr: "-", Tenants: tenants,
		Limits: Limits{AuthTimeout: Duration(authTimeout), IdleTimeout: Duration(time.Minute)}})

	// A client that never authenticates, though it keeps sending PINGs
	// (answered -NOAUTH), is closed at auth_timeout.
	conn, err := net.Dial("tcp", in.Addr())
	require.NoError(t, err)
	defer conn.Close()
	require.NoError(t, conn.SetDeadline(time.Now().Add(10*time.Second)))
	start := time.Now()
	rd := bufio.NewReader(conn)
	var closed error
	for closed == nil {
		if _, err := conn.Write([]byte("PING\r\n")); err != nil {
			closed = err
			break
		}
		line, err := rd.ReadString('\n')
		if err != nil {
			closed = err
			break
		}
		require.Contains(t, line, "NOAUTH")
	}
	elapsed := time.Since(start)
	assert.Error(t, closed, "the gateway closed the connection (the end of the stream, or a reset when a PING was in flight)")
	assert.GreaterOrEqual(t, elapsed, authTimeout-50*time.Millisecond)
	assert.Less(t, elapsed, 5*time.Second, "closed near auth_timeout, not idle_timeout")

	// A client that authenticates in time outlives auth_timeout.
	c := client(t, in, &redis.Options{Username: "shop", Password: "p", PoolSize: 1})
	ctx := context.Background()
	require.NoError(t, c.Ping(ctx).Err())
	id := c.ClientID(ctx).Val()
	deadline := time.Now().Add(3 * authTimeout)
	for time.Now().Before(deadline) {
		require.NoError(t, c.Ping(ctx).Err())
	}
	assert.Equal(t, id, c.ClientID(ctx).Val(), "the same connection, not a new one")

	// With an open default tenant no one must AUTH: no auth_timeout.
	open := startGateway(t, Config{HTTPAddr: "-", Limits: Limits{AuthTimeout: Duration(authTimeout), IdleTimeout: Duration(time.Minute)}})
	oc := client(t, open, &redis.Options{PoolSize: 1})
	require.NoError(t, oc.Ping(ctx).Err())
	oid := oc.ClientID(ctx).Val()
	deadline = time.Now().Add(3 * authTimeout)
	for time.Now().Before(deadline) {
		require.NoError(t, oc.Ping(ctx).Err())
	}
	assert.Equal(t, oid, oc.ClientID(ctx).Val())
}

// TestAuthTimeoutAfterReset: RESET ends a connection's authentication
// (where every tenant must AUTH, its commands are answered -NOAUTH again),
// and auth_timeout runs again from it. Before, the timeout was lifted for
// good at the first AUTH: a connection that authenticated, then sent
// RESET, stayed open unauthenticated up to idle_timeout, and for ever
// while it sent something, holding a slot of max_conns as auth_timeout
// exists to prevent. Found by a review.
func TestAuthTimeoutAfterReset(t *testing.T) {
	const authTimeout = 300 * time.Millisecond
	in := startGateway(t, Config{HTTPAddr: "-", Tenants: []TenantConfig{{Name: "shop", Password: "p"}},
		Limits: Limits{AuthTimeout: Duration(authTimeout), IdleTimeout: Duration(time.Minute)}})
	conn, err := net.Dial("tcp", in.Addr())
	require.NoError(t, err)
	defer conn.Close()
	require.NoError(t, conn.SetDeadline(time.Now().Add(5*time.Second)))
	rd := bufio.NewReader(conn)
	do := func(cmd, want string) {
		t.Helper()
		_, err := conn.Write([]byte(cmd + "\r\n"))
		require.NoError(t, err)
		line, err := rd.ReadString('\n')
		require.NoError(t, err)
		require.Contains(t, line, want, cmd)
	}
	do("AUTH shop p", "+OK")
	do("PING", "+PONG")
	do("RESET", "+RESET")
	reset := time.Now()
	do("PING", "NOAUTH")
	_, err = rd.ReadString('\n') // the gateway sends nothing more: it closes
	elapsed := time.Since(reset)
	require.Error(t, err)
	var ne net.Error
	assert.False(t, errors.As(err, &ne) && ne.Timeout(), "closed by the gateway, not by the test's deadline: %v", err)
	assert.GreaterOrEqual(t, elapsed, authTimeout-50*time.Millisecond, "auth_timeout runs from the RESET")
}
