package main

import (
	"bufio"
	"context"
	"errors"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestStrayArgumentsRefused: an argument that is not a flag is refused with
// the usage error's status (2), not ignored. "gateway prod.json" (-config
// forgotten) served the default open tenant, without the file's tenants and
// passwords, and "gateway -v false" turned debug logs on (a bool flag takes
// no separate value: "false" was a stray argument, ignored). The test runs
// main in a child process (this test binary).
func TestStrayArgumentsRefused(t *testing.T) {
	if asMain(t) {
		return
	}
	for _, tc := range []struct{ args []string }{
		{[]string{"prod.json"}},
		{[]string{"-v", "false"}},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			out := mainUsageError(t, tc.args)
			require.Contains(t, out, tc.args[len(tc.args)-1], "the error names the argument")
		})
	}
}

// mainUsageError runs main in a child process (this test binary) with args
// after a loopback -addr and no HTTP, requires exit status 2 (a child that
// serves instead is killed) and returns what it logged.
func mainUsageError(t *testing.T, args []string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
	defer cancel()
	cmd, stderr := startMain(ctx, t, append([]string{"-addr", "127.0.0.1:0", "-http", "-"}, args...))
	var out []string
	for sc := bufio.NewScanner(stderr); sc.Scan(); { // ends when the child exits or is killed
		out = append(out, sc.Text())
		if strings.Contains(sc.Text(), `msg="gateway serving"`) {
			_ = cmd.Process.Kill()
		}
	}
	err := cmd.Wait()
	var ee *exec.ExitError
	require.True(t, errors.As(err, &ee) && ee.ExitCode() == 2, "want exit status 2, got %v:\n%s", err, strings.Join(out, "\n"))
	return strings.Join(out, "\n")
}
