package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"strings"
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

// TestFlagBounds: -cadence, -rate and -tenants had a lower bound only. A 1 ns
// cadence was refused by the plane only after the gateway was built and every
// process started (and one of a few ms had it poll the gateways without a
// pause), -tenants 1000000 started two million clients, and a rate beyond
// what the workers can send no longer paced anything. Start refuses them
// before anything starts, naming the range. Found by a review.
func TestFlagBounds(t *testing.T) {
	for _, tt := range []struct {
		give []string
		want string
	}{
		{[]string{"-cadence", "1ns"}, "cluster: Cadence out of range (want 100ms to 1s)"},
		{[]string{"-cadence", "5ms"}, "cluster: Cadence out of range (want 100ms to 1s)"},
		{[]string{"-cadence", "1h"}, "cluster: Cadence out of range (want 100ms to 1s)"},
		{[]string{"-tenants", "1000000"}, "cluster: Tenants out of range (want 1 to 100)"},
		{[]string{"-tenants", "101"}, "cluster: Tenants out of range (want 1 to 100)"},
		{[]string{"-rate", "1e9"}, "cluster: Rate out of range (want 1 to 1000)"},
		{[]string{"-rate", "+Inf"}, "cluster: Rate out of range (want 1 to 1000)"},
		// A stream sends its first request one interval after the start,
		// and the warm-up waits 10 s for every stream's first answer: at
		// 0.05/s Start failed after building and starting everything.
		{[]string{"-rate", "0.05"}, "cluster: Rate out of range (want 1 to 1000)"},
		{[]string{"-rate", "0.99"}, "cluster: Rate out of range (want 1 to 1000)"},
	} {
		// The command refuses them as usage errors (parseFlags), Start as
		// a Spec it cannot run.
		var errOut bytes.Buffer
		_, err := parseFlags(tt.give, &errOut)
		assert.EqualError(t, err, tt.want, "%q", tt.give)
		assert.Equal(t, tt.want+"\n", errOut.String(), "%q", tt.give)
		fs := flag.NewFlagSet("cluster", flag.ContinueOnError)
		var spec Spec
		fs.IntVar(&spec.Tenants, "tenants", 0, "")
		fs.Float64Var(&spec.Rate, "rate", 0, "")
		fs.DurationVar(&spec.Cadence, "cadence", 0, "")
		require.NoError(t, fs.Parse(tt.give))
		// An unusable binary: were the spec taken, Start would fail later
		// with another error.
		spec.GatewayBin = t.TempDir() + "/no-gateway"
		spec.HTTP = "127.0.0.1:0"
		_, err = Start(context.Background(), spec)
		assert.EqualError(t, err, tt.want, "%q", tt.give)
	}
	for _, args := range [][]string{{"-cadence", "100ms"}, {"-cadence", "1s"}, {"-tenants", "100"}, {"-rate", "1000"}} {
		o, err := parseFlags(args, &bytes.Buffer{})
		require.NoError(t, err)
		assert.NoError(t, o.spec.withDefaults().validate(), "%q", args)
	}
}

// The command printed "cluster: cluster: ..." for errors of Start and the
// cluster's methods, which carry the prefix already; the others get it once.
func TestErrLinePrefixedOnce(t *testing.T) {
	for _, c := range []struct{ give, want string }{
		{"cluster: tenants out of range (want 1 to 100)", "cluster: tenants out of range (want 1 to 100)"},
		{"2 of 5 scenarios failed", "cluster: 2 of 5 scenarios failed"},
	} {
		assert.Equal(t, c.want, errLine(errors.New(c.give)))
	}
}

// TestBadFlagValuesAreUsageErrors: an unknown -scenario, a non-loopback
// -http and -tenants, -rate or -cadence out of range passed parseFlags and
// were refused by run or Start, so the command exited 1, the status of a
// failed scenario, instead of 2, that of bad usage (and an unknown scenario
// only after -h's flag checks). parseFlags refuses them now. Found by a review.
func TestBadFlagValuesAreUsageErrors(t *testing.T) {
	for _, tt := range []struct {
		give []string
		want string
	}{
		{[]string{"-scenario", "nope"}, `unknown scenario "nope"`},
		{[]string{"-scenario", "rollout,hot"}, `unknown scenario "hot"`},
		{[]string{"-http", "0.0.0.0:7070"}, "not a loopback address"},
		{[]string{"-http", ":7070"}, "not a loopback address"},
		{[]string{"-http", "7070"}, "dashboard address"},
		{[]string{"-tenants", "-1"}, "Tenants out of range"},
	} {
		var errOut bytes.Buffer
		_, err := parseFlags(tt.give, &errOut)
		require.Error(t, err, "%q", tt.give)
		assert.ErrorContains(t, err, tt.want, "%q", tt.give)
		assert.Contains(t, errOut.String(), tt.want, "%q", tt.give)
		assert.True(t, strings.HasPrefix(errOut.String(), "cluster: "), "%q: %s", tt.give, errOut.String())
	}
	for _, args := range [][]string{{"-scenario", "all"}, {"-scenario", "rollout,killed-gateway"}, {"-http", "localhost:0"}, {"-http", "[::1]:0"}} {
		_, err := parseFlags(args, &bytes.Buffer{})
		assert.NoError(t, err, "%q", args)
	}
}
