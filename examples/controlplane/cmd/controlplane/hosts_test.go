package main

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// On a loopback -listen the dashboard and API answer only requests whose Host
// is a loopback name unless allowed_hosts (or -allowed-hosts) says otherwise,
// so a page of a domain an attacker resolves to 127.0.0.1 (DNS rebinding)
// cannot read the plane or drain gateways from an operator's browser.
func TestRunAllowedHosts(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string // added to -listen 127.0.0.1:0 -region eu (a -listen here wins)
		file string   // a JSON config, if set
		host string   // the request's Host; "" keeps the listener's address
		want int
	}{
		{"default, loopback address", nil, "", "", http.StatusOK},
		{"default, localhost", nil, "", "localhost:7070", http.StatusOK},
		{"default, ipv6", nil, "", "[::1]:7070", http.StatusOK},
		{"listen localhost, another name", []string{"-listen", "localhost:0"}, "", "rebind.example", http.StatusForbidden},
		{"default, another name", nil, "", "rebind.example:7070", http.StatusForbidden},
		// A loopback listener named otherwise than "localhost" or an IP
		// (the resolver ignores case; a host name may map to 127.0.1.1)
		// is loopback too: it answered any Host.
		{"listen by another name, another name", []string{"-listen", "LOCALHOST:0"}, "", "rebind.example:7070", http.StatusForbidden},
		{"listen by another name, localhost", []string{"-listen", "LOCALHOST:0"}, "", "localhost:7070", http.StatusOK},
		{"flag, listed name", []string{"-allowed-hosts", "plane.internal,localhost"}, "", "plane.internal", http.StatusOK},
		{"flag replaces the default", []string{"-allowed-hosts", "plane.internal"}, "", "", http.StatusForbidden},
		{"flag, any host", []string{"-allowed-hosts", "*"}, "", "rebind.example", http.StatusOK},
		{"file, listed name", nil, `{"allowed_hosts": ["plane.internal"]}`, "plane.internal:7070", http.StatusOK},
		{"file, another name", nil, `{"allowed_hosts": ["plane.internal"]}`, "localhost", http.StatusForbidden},
		{"file, any host", nil, `{"allowed_hosts": ["*"]}`, "rebind.example", http.StatusOK},
	} {
		t.Run(tc.name, func(t *testing.T) {
			args := append([]string{"-listen", "127.0.0.1:0", "-region", "eu"}, tc.args...)
			if tc.file != "" {
				file := filepath.Join(t.TempDir(), "plane.json")
				require.NoError(t, os.WriteFile(file, []byte(tc.file), 0o600))
				args = append(args, "-config", file)
			}
			addr := startRun(t, args)
			req, err := http.NewRequest(http.MethodGet, "http://"+addr+"/api/state", nil)
			require.NoError(t, err)
			if tc.host != "" {
				req.Host = tc.host
			}
			resp, err := http.DefaultClient.Do(req)
			require.NoError(t, err)
			body, _ := io.ReadAll(resp.Body)
			_ = resp.Body.Close()
			assert.Equal(t, tc.want, resp.StatusCode, string(body))
			assert.Equal(t, "application/json", resp.Header.Get("Content-Type"))
		})
	}
}

// A wildcard among other names, or a name with a port, would never match a
// Host: the command refuses to start rather than refuse every request.
func TestRunAllowedHostsRefused(t *testing.T) {
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	// Cancelled: a command that wrongly started returns at once, with no error.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for _, hosts := range []string{"plane.internal:80", "*,localhost", "[::1]"} {
		err := run(ctx, []string{"-listen", "127.0.0.1:0", "-region", "eu",
			"-allowed-hosts", hosts}, log, nil)
		assert.ErrorContains(t, err, "AllowedHosts", hosts)
	}
}

// startRun runs the command with args until the test ends and returns the
// address it listens on.
func startRun(t *testing.T, args []string) string {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	addr, done := launch(t, ctx, args)
	t.Cleanup(func() {
		cancel()
		require.NoError(t, <-done)
	})
	return addr
}

// launch runs the command with args until ctx ends and returns the address it
// listens on and the channel that gets run's result; a run that fails before
// it listens fails the test.
func launch(t *testing.T, ctx context.Context, args []string) (string, <-chan error) {
	t.Helper()
	addrs := make(chan string, 1)
	done := make(chan error, 1)
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	go func() { done <- run(ctx, args, log, func(a string) { addrs <- a }) }()
	select {
	case addr := <-addrs:
		return addr, done
	case err := <-done:
		t.Fatal(err)
		return "", nil
	}
}
