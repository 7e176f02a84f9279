package main

import (
	"context"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestRueidisStalledCallFailsWithin3s: on rueidis, a batch sent to a shard
// that stops answering fails within 3 s, as dialFast and the README say,
// whatever the request timeout. rueidis checks every Dialer.KeepAlive
// whether a connection received anything since the last check, and PINGs
// only when it did not: a stall that starts right after a reply lets the
// first check pass, so it took two keep-alive periods (1 s each, before)
// and the PING's 2 s: up to 4 s.
func TestRueidisStalledCallFailsWithin3s(t *testing.T) {
	shard := startRedis(t)
	in := startGateway(t, Config{Backend: BackendConfig{Kind: "redis", Redis: []string{shard.addr}, Pool: 1, Client: "rueidis"},
		RequestTimeout: Duration(10 * time.Second)})
	ctx := context.Background()
	c := client(t, in, nil)
	require.NoError(t, c.Set(ctx, "k", "v", 0).Err()) // a reply just received
	p := shard.cmd.Process
	require.NoError(t, p.Signal(syscall.SIGSTOP))
	t.Cleanup(func() { _ = p.Signal(syscall.SIGCONT) })
	start := time.Now()
	require.ErrorContains(t, c.Get(ctx, "k").Err(), "backend shard 0")
	assert.Less(t, time.Since(start), 3*time.Second, "a stalled call fails within 3 s")
}
