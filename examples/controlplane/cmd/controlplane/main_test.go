package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/examples/controlplane"
)

// The command runs from a JSON config plus flags, serves the dashboard and the
// routes on loopback, and stops when its context ends.
func TestRun(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "plane.json")
	require.NoError(t, os.WriteFile(file, []byte(`{"cadence": "50ms",
		"regions": [{"name": "eu", "backups": ["us"]}],
		"gateways": [{"id": "eu-1", "region": "eu", "resp": "127.0.0.1:1", "http": "127.0.0.1:1", "cores": 1}]}`), 0o600))
	ctx, cancel := context.WithCancel(context.Background())
	addr, done := launch(t, ctx, []string{"-config", file, "-listen", "127.0.0.1:0", "-region", "us:eu",
		"-gateway", "us-1,us,127.0.0.1:2,127.0.0.1:2,2", "-direct", "127.0.0.1:3,127.0.0.1:4"})
	resp, err := http.Get("http://" + addr + "/")
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, http.StatusOK, resp.StatusCode)
	r, v, err := controlplane.FetchRoutes(context.Background(), "http://"+addr+"/api/routes")
	require.NoError(t, err)
	assert.GreaterOrEqual(t, v, uint64(1))
	assert.Equal(t, []string{"127.0.0.1:3", "127.0.0.1:4"}, r.Direct)
	assert.Len(t, r.Gateways, 2)
	resp, err = http.Get("http://" + addr + "/api/state")
	require.NoError(t, err)
	var st controlplane.State
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&st))
	resp.Body.Close()
	assert.Len(t, st.Hosts, 2)
	assert.InDelta(t, 50, st.CadenceMS, 0.001)
	cancel()
	require.NoError(t, <-done)
}

func TestParseArgsErrors(t *testing.T) {
	for _, args := range [][]string{
		{"-gateway", "a,b"},
		{"-gateway", "a,eu,x:1,y:2,many"},
		{"-config", "does-not-exist.json"},
	} {
		_, err := parseArgs(args)
		assert.Error(t, err, "%v", args)
	}
}

// TestStrayArgumentsRefused: an argument that is not a flag, and every flag
// after it, was ignored: "-region eu:us -gateway eu-1,... us-1,us,..." (a
// second -gateway forgotten) ran a plane without us-1, and "-region eu
// -gateway eu-1,... -cadence 100ms extra -listen 127.0.0.1:0" listened on the
// default port. Found by a review.
func TestStrayArgumentsRefused(t *testing.T) {
	gw := "eu-1,eu,127.0.0.1:6380,127.0.0.1:6381,1"
	for _, args := range [][]string{
		{"plane.json"},
		{"-region", "eu", "-gateway", gw, "us-1,us,127.0.0.1:6390,127.0.0.1:6391,1"},
		{"-region", "eu", "-gateway", gw, "extra", "-listen", "127.0.0.1:0"},
	} {
		_, err := parseArgs(args)
		require.Error(t, err, "%q", args)
		assert.Contains(t, err.Error(), "unexpected argument", "%q", args)
	}
	fc, err := parseArgs([]string{"-region", "eu", "-gateway", gw, "-listen", "127.0.0.1:0"})
	require.NoError(t, err)
	assert.Equal(t, "127.0.0.1:0", fc.Listen)
	assert.Len(t, fc.Gateways, 1)
}

// TestHelpExitsZero: -h prints the usage and exits 0 with no error line;
// it logged "flag: help requested" at ERROR and exited 1.
func TestHelpExitsZero(t *testing.T) {
	var logged bytes.Buffer
	log := slog.New(slog.NewTextHandler(&logged, nil))
	err := run(context.Background(), []string{"-h"}, log, nil)
	assert.Equal(t, 0, exitCode(err, log))
	assert.Empty(t, logged.String())
	assert.Equal(t, 1, exitCode(errors.New("boom"), log))
	assert.Contains(t, logged.String(), "boom")
}
