package main

import (
	"errors"
	"os"
	"os/exec"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestHelpExitsZero: "fanout -h" printed the usage and exited 2, the status
// of bad usage, where the other example commands (sim, overload, cluster,
// controlplane) and the flag package's own ExitOnError exit 0 for help. A
// script running "fanout -h" read it as a failure. Bad usage still exits 2.
// main runs in a child copy of the test binary, since it exits.
func TestHelpExitsZero(t *testing.T) {
	if args := os.Getenv("FANOUT_TEST_MAIN_ARGS"); args != "" {
		os.Args = []string{"fanout", args}
		main()
		os.Exit(0)
	}
	for _, tc := range []struct {
		arg, says string
		code      int
	}{{"-h", "-regions", 0}, {"-help", "-regions", 0}, {"-regions=x", "invalid value", 2}, {"stray", "unexpected argument", 2}} {
		cmd := exec.Command(os.Args[0], "-test.run=^TestHelpExitsZero$")
		cmd.Env = append(os.Environ(), "FANOUT_TEST_MAIN_ARGS="+tc.arg)
		out, err := cmd.CombinedOutput()
		code := 0
		var exit *exec.ExitError
		if errors.As(err, &exit) {
			code = exit.ExitCode()
		} else {
			require.NoError(t, err)
		}
		assert.Equal(t, tc.code, code, "fanout %s:\n%s", tc.arg, out)
		assert.Contains(t, string(out), tc.says, "fanout %s", tc.arg)
	}
}
