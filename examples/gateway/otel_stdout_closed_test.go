package main

import (
	"bufio"
	"context"
	"io"
	"net"
	"os/exec"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/examples/internal/childproc"
)

// TestOTelStdoutClosedKeepsServing: with -otel stdout, a reader of the
// spans that goes away (a pipe to a collector that exits) fails the
// exporter's writes, not the gateway. Go ends a process that writes to a
// broken pipe on its stdout with SIGPIPE unless the signal is handled: the
// first batch of spans after the reader left killed the gateway, and every
// connection with it.
func TestOTelStdoutClosedKeepsServing(t *testing.T) {
	if asMain(t) {
		return
	}
	c := startOTelStdoutClosed(t)
	// The exporter's failure is reported on stderr; a child killed by
	// SIGPIPE closes stderr first.
	failed := false
	for !failed && c.lines.Scan() {
		failed = strings.Contains(c.lines.Text(), "broken pipe")
	}
	if !failed {
		t.Fatalf("no exporter failure on stderr (the child ended: %v)", c.cmd.Wait())
	}
	go func() { _, _ = io.Copy(io.Discard, c.stderr) }()
	_, err := c.conn.Write([]byte("PING\r\n"))
	require.NoError(t, err)
	l, err := c.rd.ReadString('\n')
	require.NoError(t, err, "the gateway stopped serving once its span reader left")
	require.Equal(t, "+PONG\r\n", l)
}

// otelChild is a gateway child run with -otel stdout whose stdout's reader
// is gone, after it answered 1,024 SETs (two full batches of the span
// processor, 512 each, exported to the closed pipe).
type otelChild struct {
	cmd    *exec.Cmd
	stderr io.Reader
	lines  *bufio.Scanner // stderr's lines after the serving line
	conn   net.Conn
	rd     *bufio.Reader
}

// startOTelStdoutClosed starts an otelChild; the test's cleanup kills it.
func startOTelStdoutClosed(t *testing.T) otelChild {
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	t.Cleanup(cancel)
	cmd := mainCmd(ctx, t, []string{"-addr", "127.0.0.1:0", "-http", "-", "-otel", "stdout"})
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	stderr, err := cmd.StderrPipe()
	require.NoError(t, err)
	require.NoError(t, childproc.Start(cmd)) // dies with this process, cleanups or not
	require.NoError(t, stdout.Close())       // the spans' reader is gone
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
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
	t.Cleanup(func() { _ = conn.Close() })
	rd := bufio.NewReader(conn)
	_, err = conn.Write([]byte(strings.Repeat("SET k v\r\n", 1024)))
	require.NoError(t, err)
	for range 1024 {
		l, err := rd.ReadString('\n')
		if err != nil {
			t.Fatalf("read: %v (the child ended: %v)", err, cmd.Wait())
		}
		require.Equal(t, "+OK\r\n", l)
	}
	return otelChild{cmd: cmd, stderr: stderr, lines: lines, conn: conn, rd: rd}
}
