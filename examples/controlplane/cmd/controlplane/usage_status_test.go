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
		var logged bytes.Buffer
		log := slog.New(slog.NewTextHandler(&logged, nil))
		err := run(context.Background(), append([]string{"-listen", "127.0.0.1:0"}, args...), log, nil)
		require.Error(t, err, "%q", args)
		assert.Equal(t, 2, exitCode(err, log), "%q: %v", args, err)
		assert.Contains(t, logged.String(), "level=ERROR", "%q", args)
	}
	// A plane that cannot listen fails as it runs: 1.
	log := slog.New(slog.NewTextHandler(&bytes.Buffer{}, nil))
	err := run(context.Background(), []string{"-listen", "127.0.0.1:-1", "-region", "eu"}, log, nil)
	require.Error(t, err)
	assert.Equal(t, 1, exitCode(err, log), "%v", err)
	assert.Equal(t, 1, exitCode(errors.New("serve: boom"), log))
	assert.Equal(t, 0, exitCode(run(context.Background(), []string{"-h"}, log, nil), log))
}
