package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestHangupDrains: a SIGHUP (the terminal that started the gateway closing)
// shuts down as SIGTERM does, draining the connections and flushing the
// batches, and a second SIGHUP during that drain does not cut it (a hang-up
// comes twice: the shell passes its own on to its jobs, and the kernel sends
// one to the terminal's foreground group when the shell exits). Before,
// SIGHUP was not handled: its default action ended the process at once, and
// writes acknowledged to clients but still in a batch were lost. The child
// is held in its drain by a pipeline of INCRs of one key, each delayed by
// chaos.delay_us; every reply must arrive and the child exit with status 0.
func TestHangupDrains(t *testing.T) {
	if asMain(t) {
		return
	}
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	cmd, stderr := startMain(ctx, t, []string{"-addr", "127.0.0.1:0", "-http", "127.0.0.1:0"}, catchSIGHUPEnv+"=1")
	waited := false
	defer func() {
		if !waited {
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
		}
	}()
	next := nextLogLine(t, stderr)
	conn := holdInDrain(ctx, t, next("gateway serving"), 3, 200*time.Millisecond)
	defer conn.Close()

	require.NoError(t, cmd.Process.Signal(syscall.SIGHUP))
	require.Contains(t, next("shutting down: draining connections and flushing batches"), "signal=hangup")
	require.NoError(t, cmd.Process.Signal(syscall.SIGHUP), "the child was already gone: no drain to test")
	replies, err := io.ReadAll(conn)
	require.NoError(t, err)
	require.Equal(t, ":1\r\n:2\r\n:3\r\n", string(replies), "the drain delivers every reply")
	go func() { _, _ = io.Copy(io.Discard, stderr) }()
	err = cmd.Wait()
	waited = true
	require.NoError(t, err, "want the child to drain and exit with status 0, got %v", cmd.ProcessState)
}

// TestHangupIgnoredAtStartStaysIgnored: a gateway started with SIGHUP
// ignored (under nohup) goes on ignoring it. Handling SIGHUP must not
// install a handler then: Go's signal.Notify replaces the inherited
// SIG_IGN, and the hang-up nohup was used to survive would drain it.
func TestHangupIgnoredAtStartStaysIgnored(t *testing.T) {
	if asMain(t) {
		return
	}
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	cmd, stderr := startMain(ctx, t, []string{"-addr", "127.0.0.1:0", "-http", "-"}, ignoreSIGHUPEnv+"=1")
	defer func() { _ = cmd.Process.Kill() }()
	next := nextLogLine(t, stderr)
	next("gateway serving")
	// An ignored signal is discarded when sent; one caught is pending, and
	// taken before the SIGTERM sent after it (lower signals first).
	require.NoError(t, cmd.Process.Signal(syscall.SIGHUP))
	require.NoError(t, cmd.Process.Signal(syscall.SIGTERM))
	require.Contains(t, next("shutting down: draining connections and flushing batches"), "signal=terminated")
	go func() { _, _ = io.Copy(io.Discard, stderr) }()
	require.NoError(t, cmd.Wait())
}

// nextLogLine returns a function that reads the child's log (stderr) up to
// the next line whose message is msg, and returns that line.
func nextLogLine(t *testing.T, stderr io.Reader) func(msg string) string {
	lines := bufio.NewScanner(stderr)
	return func(msg string) string {
		t.Helper()
		for lines.Scan() {
			if strings.Contains(lines.Text(), `msg="`+msg+`"`) || strings.Contains(lines.Text(), "msg="+msg+" ") {
				return lines.Text()
			}
		}
		t.Fatalf("no %q line from the child", msg)
		return ""
	}
}

// holdInDrain sets chaos.delay_us to delay on the child whose "gateway
// serving" log line is serving, sends it a pipeline of n INCRs of one key
// and returns the connection once the first is in flight (admitted, in the
// chaos delay): a drain then waits for the n of them, one after the other.
func holdInDrain(ctx context.Context, t *testing.T, serving string, n int, delay time.Duration) net.Conn {
	t.Helper()
	m := regexp.MustCompile(`resp=(\S+) http=(\S+)`).FindStringSubmatch(serving)
	require.NotNil(t, m)
	resp, base := m[1], "http://"+m[2]+"/control/"
	post, err := http.NewRequestWithContext(ctx, http.MethodPost, base, strings.NewReader(fmt.Sprintf(
		`{"who": "test", "changes": [{"knob": "chaos.delay_us", "value": %d}]}`, delay.Microseconds())))
	require.NoError(t, err)
	post.Header.Set("Content-Type", "application/json")
	res, err := http.DefaultClient.Do(post)
	require.NoError(t, err)
	_, _ = io.Copy(io.Discard, res.Body)
	_ = res.Body.Close()
	require.Equal(t, http.StatusOK, res.StatusCode)

	conn, err := net.Dial("tcp", resp)
	require.NoError(t, err)
	_, err = conn.Write([]byte(strings.Repeat("INCR x\r\n", n)))
	require.NoError(t, err)
	for inFlight := 0; inFlight == 0; {
		require.NoError(t, ctx.Err(), "the pipeline never got in flight")
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, base+"state", nil)
		require.NoError(t, err)
		res, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		var st struct {
			Host struct {
				InFlight int `json:"in_flight"`
			} `json:"host"`
		}
		require.NoError(t, json.NewDecoder(res.Body).Decode(&st))
		_ = res.Body.Close()
		inFlight = st.Host.InFlight
	}
	return conn
}
