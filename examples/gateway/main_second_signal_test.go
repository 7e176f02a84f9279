package main

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"os/signal"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestSecondSignalExitsAtOnce: the first SIGINT or SIGTERM drains, which
// waits for the commands the connections have read (up to 10 s); a second
// one ends the process at once, as the signal's default action does. Before,
// the handler stayed installed through the drain, so a second Ctrl-C did
// nothing. The child (this test binary, running main) is held in its drain
// by a pipeline of five INCRs of one key, each delayed 1 s by chaos.delay_us.
func TestSecondSignalExitsAtOnce(t *testing.T) {
	if asMain(t) {
		return
	}
	ctx, cancel := context.WithTimeout(t.Context(), 1500*time.Millisecond)
	defer cancel()
	cmd, stderr := startMain(ctx, t, []string{"-addr", "127.0.0.1:0", "-http", "127.0.0.1:0"})
	waited := false
	defer func() {
		if !waited {
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
		}
	}()
	lines := bufio.NewScanner(stderr)
	next := func(msg string) string { // the next log line with msg
		t.Helper()
		for lines.Scan() {
			if strings.Contains(lines.Text(), `msg="`+msg+`"`) || strings.Contains(lines.Text(), "msg="+msg+" ") {
				return lines.Text()
			}
		}
		t.Fatalf("no %q line from the child", msg)
		return ""
	}
	m := regexp.MustCompile(`resp=(\S+) http=(\S+)`).FindStringSubmatch(next("gateway serving"))
	require.NotNil(t, m)
	resp, base := m[1], "http://"+m[2]+"/control/"

	post, err := http.NewRequestWithContext(ctx, http.MethodPost, base, strings.NewReader(
		`{"who": "test", "changes": [{"knob": "chaos.delay_us", "value": 1000000}]}`))
	require.NoError(t, err)
	post.Header.Set("Content-Type", "application/json")
	res, err := http.DefaultClient.Do(post)
	require.NoError(t, err)
	_, _ = io.Copy(io.Discard, res.Body)
	_ = res.Body.Close()
	require.Equal(t, http.StatusOK, res.StatusCode)

	conn, err := net.Dial("tcp", resp)
	require.NoError(t, err)
	defer conn.Close()
	_, err = conn.Write([]byte(strings.Repeat("INCR x\r\n", 5)))
	require.NoError(t, err)
	// Wait until the first INCR is admitted (in the chaos delay): the drain
	// then has commands to wait for.
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

	// A process started with SIGINT ignored (a shell's background job is)
	// passes that on to the child, whose signal.Stop then restores it:
	// the second signal is SIGTERM there, whose default action ends it.
	second := syscall.SIGINT
	if signal.Ignored(syscall.SIGINT) {
		second = syscall.SIGTERM
	}
	require.NoError(t, cmd.Process.Signal(syscall.SIGTERM))
	next("shutting down: draining connections and flushing batches")
	require.NoError(t, cmd.Process.Signal(second))
	go func() { _, _ = io.Copy(io.Discard, stderr) }()
	_ = cmd.Wait()
	waited = true
	ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus)
	require.True(t, ok)
	require.True(t, ws.Signaled() && ws.Signal() == second,
		"want the child ended by the second signal (%v) during its drain, got %v", second, cmd.ProcessState)
}
