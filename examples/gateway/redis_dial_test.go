//go:build linux

package main

import (
	"context"
	"net"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// unanswered returns a loopback address whose connection attempts hang
// until the dialer's timeout, as a host that is down (or cut off) does: a
// listener that never accepts, whose accept queue is full, so that the
// kernel drops further SYNs.
func unanswered(t *testing.T) string {
	t.Helper()
	fd, err := syscall.Socket(syscall.AF_INET, syscall.SOCK_STREAM, 0)
	require.NoError(t, err)
	t.Cleanup(func() { _ = syscall.Close(fd) })
	require.NoError(t, syscall.Bind(fd, &syscall.SockaddrInet4{Addr: [4]byte{127, 0, 0, 1}}))
	require.NoError(t, syscall.Listen(fd, 0))
	sa, err := syscall.Getsockname(fd)
	require.NoError(t, err)
	addr := "127.0.0.1:" + strconv.Itoa(sa.(*syscall.SockaddrInet4).Port)
	for i := 0; ; i++ {
		require.Less(t, i, 16, "the accept queue of %s does not fill", addr)
		c, err := net.DialTimeout("tcp", addr, 100*time.Millisecond)
		if err != nil {
			return addr // the queue is full: connects hang now
		}
		t.Cleanup(func() { _ = c.Close() })
	}
}

// TestUnansweredShardFailsWithinDialTimeout: a shard whose connection
// attempts go unanswered fails its keys after one dial timeout (500 ms), not
// after the client's own dial retries (go-redis makes 5 attempts, 100 ms
// apart, by default: 2.9 s).
func TestUnansweredShardFailsWithinDialTimeout(t *testing.T) {
	eachClient(t, func(t *testing.T, kind string) {
		addr := unanswered(t)
		in := startGateway(t, Config{Backend: BackendConfig{Kind: "redis", Redis: []string{addr}, Pool: 2, Client: kind}})
		c := client(t, in, nil)
		ctx := context.Background()
		for range 2 {
			start := time.Now()
			require.ErrorContains(t, c.Get(ctx, "k").Err(), "backend shard 0")
			assert.Less(t, time.Since(start), 1500*time.Millisecond, "one dial timeout, not several")
		}
	})
}
