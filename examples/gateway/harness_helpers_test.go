package main

import (
	"bytes"
	"context"
	"os/exec"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/examples/internal/citest"
)

// harnessBash returns bash's path for a test of harness.sh's functions, or
// skips the test without bash or without one of tools (harness_init checks
// redis-cli and redis-benchmark).
func harnessBash(t *testing.T, tools ...string) string {
	t.Helper()
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("no bash")
	}
	for _, tool := range tools {
		if _, err := exec.LookPath(tool); err != nil {
			citest.SkipOrFailInCI(t, tool+" is needed: run scripts/setup.sh")
		}
	}
	return bash
}

// runHarness runs script after sourcing harness.sh and harness_init, and
// returns its output and exit error; the test fails if it runs past
// timeout (a function that never returns).
func runHarness(t *testing.T, bash, script string, timeout time.Duration) (stdout, stderr string, err error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, bash, "-c", "source ./harness.sh; harness_init; "+script)
	// A child the script left running (a redis-benchmark that never ends)
	// holds the output pipes open after the timeout kills bash: stop
	// waiting for them, so the test fails instead of hanging.
	cmd.WaitDelay = 5 * time.Second
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	err = cmd.Run()
	require.NoError(t, ctx.Err(), "the script did not return: %s", e.String())
	return o.String(), e.String(), err
}
