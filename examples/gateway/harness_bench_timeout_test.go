package main

import (
	"net"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// silentServer returns the port of a loopback listener that accepts
// connections and never answers on them (a wedged proxy or shard, or one
// stopped with Ctrl-Z), served by this test's process until the test ends.
func silentServer(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	var (
		mu    sync.Mutex
		conns []net.Conn
	)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, c) // held open, never answered
			mu.Unlock()
		}
	}()
	t.Cleanup(func() {
		_ = ln.Close()
		mu.Lock()
		defer mu.Unlock()
		for _, c := range conns {
			_ = c.Close()
		}
	})
	_, port, _ := strings.Cut(ln.Addr().String(), ":")
	return port
}

// TestHarnessBenchBounded: bench checked that the row's proxy process was
// alive and then ran redis-benchmark, which has no timeout of its own. A
// proxy that accepts and never answers, or one that dies between the check
// and redis-benchmark's connections (nothing then listens on its port, and
// redis-benchmark waits for its clients' replies for ever), held the row,
// and compare.sh, ab.sh or syscalls.sh, for ever. bench must give up after
// BENCH_TIMEOUT seconds, failing with an error line for the row to show.
func TestHarnessBenchBounded(t *testing.T) {
	bash := harnessBash(t, "redis-cli", "redis-benchmark", "timeout")
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	_, closed, _ := strings.Cut(ln.Addr().String(), ":")
	require.NoError(t, ln.Close())
	live := strconv.Itoa(os.Getpid()) // the "proxy" process: alive throughout

	for name, port := range map[string]string{"silent": silentServer(t), "died after the check": closed} {
		t.Run(name, func(t *testing.T) {
			start := time.Now()
			_, stderr, err := runHarness(t, bash, `BENCH_TIMEOUT=2 bench `+live+` -p `+port+` -c 2 -n 10 -t get --csv`, 30*time.Second)
			require.Error(t, err, "bench returned success on a proxy that never answered")
			assert.Contains(t, stderr, "error: redis-benchmark did not finish in 2 s")
			assert.Less(t, time.Since(start), 20*time.Second, "BENCH_TIMEOUT=2 and its kill's grace")
		})
	}
}
