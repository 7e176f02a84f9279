package main

import (
	"context"
	"encoding/json"
	"io"
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
	addrs := make(chan string, 1)
	done := make(chan error, 1)
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	go func() {
		done <- run(ctx, []string{"-config", file, "-listen", "127.0.0.1:0", "-region", "us:eu",
			"-gateway", "us-1,us,127.0.0.1:2,127.0.0.1:2,2", "-direct", "127.0.0.1:3,127.0.0.1:4"}, log,
			func(a string) { addrs <- a })
	}()
	var addr string
	select {
	case addr = <-addrs:
	case err := <-done:
		t.Fatal(err)
	}
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
