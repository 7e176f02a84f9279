package redisproc

import (
	"context"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
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

// A server keeps its files to itself: one started in a directory that holds
// a dump.rdb starts empty, and a replica's full sync leaves no dump.rdb in
// the working directory. Both were the test's working directory (the
// package's): every server loaded what a replica of an earlier test, or an
// earlier run, had left there, so a fresh checkout and a second run did not
// test the same thing (a replica's sync was a full one, delayed by
// repl-diskless-sync-delay, only in the first).
func TestStartKeepsNoFilesInWorkingDir(t *testing.T) {
	b := bin(t)
	t.Chdir(t.TempDir())
	ctx := context.Background()
	wd, err := os.Getwd()
	require.NoError(t, err)
	saver, err := StartFree(b, 5, "", "", Ping, "--dir", wd) // a dump.rdb with a key in the working directory
	require.NoError(t, err)
	sc := redis.NewClient(&redis.Options{Addr: saver.Addr, MaxRetries: -1})
	require.NoError(t, sc.Set(ctx, "k", "v", 0).Err())
	require.NoError(t, sc.Save(ctx).Err())
	_ = sc.Close()
	saver.Stop()
	require.FileExists(t, "dump.rdb")
	require.NoError(t, os.Rename("dump.rdb", "kept.rdb"))

	primary, err := StartFree(b, 5, "", "", Ping, "--repl-diskless-sync-delay", "0")
	require.NoError(t, err)
	t.Cleanup(primary.Stop)
	pc := redis.NewClient(&redis.Options{Addr: primary.Addr, MaxRetries: -1})
	defer pc.Close()
	require.NoError(t, pc.Set(ctx, "p", "1", 0).Err())
	host, port, _ := strings.Cut(primary.Addr, ":")
	replica, err := StartFree(b, 5, "", "", Ping, "--replicaof", host, port)
	require.NoError(t, err)
	t.Cleanup(replica.Stop)
	rc := redis.NewClient(&redis.Options{Addr: replica.Addr, MaxRetries: -1})
	defer rc.Close()
	for deadline := time.Now().Add(30 * time.Second); rc.Get(ctx, "p").Val() != "1"; {
		require.True(t, time.Now().Before(deadline), "the replica did not sync")
		time.Sleep(10 * time.Millisecond) // bounded poll: replication has no event to wait on
	}
	replica.Stop()
	primary.Stop()
	entries, err := os.ReadDir(".")
	require.NoError(t, err)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	assert.Equal(t, []string{"kept.rdb"}, names, "files the servers left in the working directory")

	require.NoError(t, os.Rename("kept.rdb", "dump.rdb"))
	fresh, err := StartFree(b, 5, "", "", Ping)
	require.NoError(t, err)
	t.Cleanup(fresh.Stop)
	fc := redis.NewClient(&redis.Options{Addr: fresh.Addr, MaxRetries: -1})
	defer fc.Close()
	n, err := fc.DBSize(ctx).Result()
	require.NoError(t, err)
	require.Zero(t, n, "keys a server started with, from the working directory's dump.rdb")
}
