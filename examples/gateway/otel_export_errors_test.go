package main

import (
	"bufio"
	"context"
	"net"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestOTelExportErrorsRateLimited: a failing span exporter (-otel stdout
// with its reader gone) is logged at most once per 10 s, as a shard's
// outage is. OpenTelemetry's default error handler printed the stdout
// exporter's error, a line per span of the batch, on stderr: one log line
// per traced command, as many as clients sent.
func TestOTelExportErrorsRateLimited(t *testing.T) {
	if asMain(t) {
		return
	}
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	cmd := mainCmd(ctx, t, []string{"-addr", "127.0.0.1:0", "-http", "-", "-otel", "stdout"})
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	stderr, err := cmd.StderrPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	require.NoError(t, stdout.Close()) // the spans' reader is gone
	defer func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	}()
	lines := bufio.NewScanner(stderr)
	lines.Buffer(nil, 1<<20)
	serving := regexp.MustCompile(`resp=(\S+)`)
	var resp string
	for resp == "" && lines.Scan() {
		if m := serving.FindStringSubmatch(lines.Text()); m != nil {
			resp = m[1]
		}
	}
	require.NotEmpty(t, resp, "no serving line from the child")
	conn, err := net.Dial("tcp", resp)
	require.NoError(t, err)
	defer conn.Close()
	rd := bufio.NewReader(conn)
	_, err = conn.Write([]byte(strings.Repeat("SET k v\r\n", 1024)))
	require.NoError(t, err)
	for range 1024 {
		l, err := rd.ReadString('\n')
		require.NoError(t, err)
		require.Equal(t, "+OK\r\n", l)
	}
	// The shutdown exports what is left: every span has failed by the end
	// of stderr.
	require.NoError(t, cmd.Process.Signal(syscall.SIGTERM))
	failures := 0
	for lines.Scan() {
		if strings.Contains(lines.Text(), "broken pipe") {
			failures++
		}
	}
	require.NoError(t, lines.Err())
	require.Equal(t, 1, failures, "export failures logged for 1,024 spans")
}
