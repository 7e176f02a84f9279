package main

import (
	"bytes"
	"errors"
	"flag"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestStrayArgumentsRefused: "cluster noisy-tenant" started the cluster and
// served it until interrupted, running no scenario, and "cluster noisy-tenant
// -q" ignored -q too: flag parsing stops at the first argument that is not a
// flag, and the rest was ignored. Found by a review.
func TestStrayArgumentsRefused(t *testing.T) {
	for _, args := range [][]string{{"noisy-tenant"}, {"noisy-tenant", "-q"}, {"-scenario", "all", "keep"}} {
		var errOut bytes.Buffer
		_, err := parseFlags(args, &errOut)
		require.Error(t, err, "%q", args)
		assert.Contains(t, errOut.String(), "unexpected argument", "%q", args)
	}

	o, err := parseFlags([]string{"-scenario", "rollout", "-http", "127.0.0.1:0", "-tenants", "3", "-rate", "5",
		"-cadence", "1s", "-keep", "-q", "-gateway", "gw"}, &bytes.Buffer{})
	require.NoError(t, err)
	assert.Equal(t, options{scenario: "rollout", keep: true, quiet: true,
		spec: Spec{HTTP: "127.0.0.1:0", Tenants: 3, Rate: 5, Cadence: time.Second, GatewayBin: "gw"}}, o)
	o, err = parseFlags(nil, &bytes.Buffer{})
	require.NoError(t, err)
	assert.Equal(t, options{spec: Spec{HTTP: "127.0.0.1:7070"}}, o)

	_, err = parseFlags([]string{"-h"}, &bytes.Buffer{})
	assert.True(t, errors.Is(err, flag.ErrHelp), "-h is help (exit 0), not an error: %v", err)
	_, err = parseFlags([]string{"-rate", "x"}, &bytes.Buffer{})
	assert.Error(t, err)
}
