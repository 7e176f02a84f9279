package redisproc

import (
	"context"
	"net"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"
)

func bin(t *testing.T) string {
	t.Helper()
	b, err := exec.LookPath("redis-server")
	require.NoError(t, err, "redis-server is needed: run scripts/setup.sh")
	return b
}

// A server started on a port another server holds exits at start: Start
// must say so rather than take the other server, which answers the
// readiness check, for its own.
func TestStartOnTakenPort(t *testing.T) {
	b := bin(t)
	other, err := StartFree(b, 5, "", "", Ping)
	require.NoError(t, err)
	t.Cleanup(other.Stop)
	port, err := strconv.Atoi(strings.TrimPrefix(other.Addr, "127.0.0.1:"))
	require.NoError(t, err)
	p, err := Start(b, port, "", "", Ping)
	if p != nil {
		p.Stop()
	}
	require.ErrorContains(t, err, "exited at start")
	c := redis.NewClient(&redis.Options{Addr: other.Addr})
	defer c.Close()
	require.NoError(t, c.Ping(context.Background()).Err(), "the other server was stopped")
}

// StartFree serves on a port of its own, and Stop ends the process.
func TestStartFreeAndStop(t *testing.T) {
	p, err := StartFree(bin(t), 1, "", "", Ping)
	require.NoError(t, err)
	p.Stop()
	p.Stop() // idempotent
	require.NotNil(t, p.Cmd.ProcessState)
}

// A port held by a listener that accepts and never answers: the server
// exits at start, but the readiness check's PING waited out go-redis's
// default 3 s read timeout before Start looked at the exit (found by a
// review). Each check is bounded by checkTimeout now.
func TestStartOnSilentPortReturnsPromptly(t *testing.T) {
	b := bin(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer ln.Close()
	accepted := make(chan net.Conn, 16)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				close(accepted)
				return
			}
			accepted <- c // held open, never answered
		}
	}()
	defer func() {
		_ = ln.Close()
		for c := range accepted {
			_ = c.Close()
		}
	}()
	start := time.Now()
	p, err := Start(b, ln.Addr().(*net.TCPAddr).Port, "", "", Ping)
	if p != nil {
		p.Stop()
	}
	took := time.Since(start)
	require.ErrorContains(t, err, "exited at start")
	// One check's bound plus the exit, with room for a loaded machine:
	// under the 3 s read timeout it waited out before.
	require.Less(t, took, 10*checkTimeout, "Start on a silent port")
}
