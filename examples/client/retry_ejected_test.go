package client_test

import (
	"bufio"
	"context"
	"io"
	"net"
	"sync"
	"testing"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/examples/client"
	"github.com/tierkit/tierkit/hashring"
)

// hangingRESP is a loopback host that reads one command per connection,
// reports it on got, and hangs up once release is closed: a gateway that
// hangs, then dies. It stops at cleanup.
func hangingRESP(t *testing.T, got chan<- struct{}, release <-chan struct{}) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	var wg sync.WaitGroup
	t.Cleanup(func() { _ = ln.Close(); wg.Wait() })
	wg.Go(func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			wg.Go(func() {
				defer conn.Close()
				if _, err := readCommand(bufio.NewReader(conn)); err != nil {
					return
				}
				got <- struct{}{}
				<-release
			})
		}
	})
	return ln.Addr().String()
}

// A request's retry host can be ejected while its first attempt runs (a
// hung host's read timeout, a blackholed host's dial timeout): another
// request found it dead meanwhile. The retry must go past it to the next
// usable host of the key's replica order, as a request routed now would:
// it was sent to the ejected host, and the request failed although a healthy
// host was left.
func TestRetrySkipsHostEjectedDuringFirstAttempt(t *testing.T) {
	got, release := make(chan struct{}, 1), make(chan struct{})
	hung := hangingRESP(t, got, release)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	dead := ln.Addr().String()
	require.NoError(t, ln.Close()) // refuses
	ok := fakeRESP(t, func([]string) string { return "$1\r\nv\r\n" })
	c := routedClient(t, client.Config{}, hung, dead, ok)
	k1 := keyRouted(t, c, func(tg client.Target) bool { return tg.Host == hung && tg.Next == dead })
	k2 := keyRouted(t, c, func(tg client.Target) bool { return tg.Host == dead && tg.Next == ok })

	done := make(chan error, 1)
	go func() {
		_, err := c.Get(context.Background(), k1)
		done <- err
	}()
	<-got // k1's first attempt hangs on its host
	v, err := c.Get(context.Background(), k2)
	require.NoError(t, err) // ejects dead, retried on ok
	require.Equal(t, "v", v)
	close(release) // k1's host hangs up: k1 is retried
	require.NoError(t, <-done, "k1's retry went to the host ejected meanwhile")
	st := c.Stats()
	require.EqualValues(t, 1, st.Hosts[dead], "attempts on the dead host: %+v", st)
	require.EqualValues(t, 2, st.Hosts[ok], "%+v", st)
	require.EqualValues(t, 2, st.Retries, "%+v", st)
	require.Zero(t, st.Failures, "%+v", st)
}

// A request whose retry host SetRoutes dropped while its first attempt ran
// finds no pool there (none is reopened for a host the routes in force
// lack). It must fail with its first host's error: it failed with
// redis.ErrClosed, "redis: client is closed", from a client that is open,
// and the cause (the first host failing) was lost.
func TestRetryOnDroppedHostKeepsFirstError(t *testing.T) {
	got, release := make(chan struct{}, 1), make(chan struct{})
	hung := hangingRESP(t, got, release)
	ok := fakeRESP(t, func([]string) string { return "$1\r\nv\r\n" })
	c := routedClient(t, client.Config{}, hung, ok)
	k := keyRouted(t, c, func(tg client.Target) bool { return tg.Host == hung && tg.Next == ok })

	done := make(chan error, 1)
	go func() {
		_, err := c.Get(context.Background(), k)
		done <- err
	}()
	<-got // k's first attempt hangs on its host
	r, _ := c.Routes()
	ring, err := hashring.New(hashring.Config{}, []hashring.Node{{ID: hung, Weight: 1}})
	require.NoError(t, err)
	r.Gateways["eu"] = ring // ok leaves the routes
	require.NoError(t, c.SetRoutes(r))
	close(release) // k's host hangs up: k is retried on ok, dropped meanwhile
	err = <-done
	require.Error(t, err)
	require.NotErrorIs(t, err, redis.ErrClosed, "the open client answered %v", err)
	require.ErrorIs(t, err, io.EOF, "the first host's failure was lost")
}
