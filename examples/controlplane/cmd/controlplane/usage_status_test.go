package main

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestBadUsageExitsTwo: a bad flag value, a stray argument, a config file
// that is missing or does not parse and a setting the plane refuses
// (-cadence -1s, cores NaN, an unknown backup region) made the command exit
// 1, the status of a plane that failed while serving, where the other
// example commands exit 2 for bad usage. Found by a review.
func TestBadUsageExitsTwo(t *testing.T) {
	bad := filepath.Join(t.TempDir(), "bad.json")
	require.NoError(t, os.WriteFile(bad, []byte(`{"cadense": "1s"}`), 0o600))
	gw := "eu-1,eu,127.0.0.1:1,127.0.0.1:2,"
	for _, args := range [][]string{
		{"-cadence", "x"}, {"-cadence", "-1s"}, {"-gateway", "a,b"}, {"-nope"}, {"plane.json"},
		{"-config", filepath.Join(t.TempDir(), "missing.json")}, {"-config", bad},
		{"-region", "eu", "-gateway", gw + "NaN"}, {"-region", "eu", "-gateway", gw + "0"},
		{"-region", "eu:us"}, {"-region", "eu", "-direct", "a,,b"}, {"-region", "eu", "-allowed-hosts", "*,localhost"},
		{}, // no regions
	} {
		logged, _ := runExpectStatus(t, 2, append([]string{"-listen", "127.0.0.1:0"}, args...)...)
		assert.Contains(t, logged, "level=ERROR", "%q", args)
	}
	// A plane that cannot listen fails as it runs: 1.
	runExpectStatus(t, 1, "-listen", "127.0.0.1:-1", "-region", "eu")
	log := slog.New(slog.NewTextHandler(&bytes.Buffer{}, nil))
	assert.Equal(t, 1, exitCode(errors.New("serve: boom"), log))
	assert.Equal(t, 0, exitCode(run(context.Background(), []string{"-h"}, log, nil), log))
}

// runExpectStatus runs the command with args, stopping at once a plane that
// starts serving (run then returns nil), requires it to fail with the exit
// status want, and returns what it logged and its error.
func runExpectStatus(t *testing.T, want int, args ...string) (string, error) {
	t.Helper()
	var logged bytes.Buffer
	log := slog.New(slog.NewTextHandler(&logged, nil))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	err := run(ctx, args, log, func(string) { cancel() })
	require.Error(t, err, "%q", args)
	assert.Equal(t, want, exitCode(err, log), "%q: %v", args, err)
	return logged.String(), err
}
