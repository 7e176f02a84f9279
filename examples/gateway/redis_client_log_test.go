package main

import (
	"bufio"
	"context"
	"io"
	"net"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestShardOutageLogsOnce: a shard that is down makes one warning in the
// gateway's log however many requests meet the outage, with either data-path
// client. go-redis's own logger wrote a line of its own to stderr for each
// dial that failed, outside the gateway's log (no level, no structure): one
// per failed batch on the go-redis data path, and per failed dial of the
// transactions' pool on rueidis. They are debug lines of the gateway's log
// now (-v shows them).
func TestShardOutageLogsOnce(t *testing.T) {
	if asMain(t) {
		return
	}
	eachClient(t, func(t *testing.T, kind string) {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		require.NoError(t, err)
		dead := "127.0.0.1:" + strconv.Itoa(ln.Addr().(*net.TCPAddr).Port)
		require.NoError(t, ln.Close()) // nothing listens there now
		ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
		defer cancel()
		cmd, stderr := startMain(ctx, t, []string{"-addr", "127.0.0.1:0", "-http", "-", "-redis", dead, "-redis-client", kind})
		defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
		lines := bufio.NewScanner(stderr)
		var addr string
		for addr == "" && lines.Scan() {
			if m := regexp.MustCompile(`msg="gateway serving" resp=(\S+)`).FindStringSubmatch(lines.Text()); m != nil {
				addr = m[1]
			}
		}
		require.NotEmpty(t, addr, "no serving line from the child")
		c := redis.NewClient(&redis.Options{Addr: addr, MaxRetries: -1})
		defer c.Close()
		const n = 20
		for range n {
			require.ErrorContains(t, c.Set(ctx, "k", "v", 0).Err(), "backend shard 0")
			require.ErrorContains(t, c.Watch(ctx, func(*redis.Tx) error { return nil }, "k"), "")
		}
		require.NoError(t, cmd.Process.Signal(syscall.SIGTERM))
		var foreign []string
		warnings := 0
		for lines.Scan() {
			l := lines.Text()
			switch {
			case !strings.HasPrefix(l, "time="):
				foreign = append(foreign, l)
			case strings.Contains(l, "backend shard unreachable"):
				warnings++
			}
		}
		_, _ = io.Copy(io.Discard, stderr)
		assert.Empty(t, foreign, "lines outside the gateway's log")
		assert.Equal(t, 1, warnings, "one warning for the outage")
	})
}
