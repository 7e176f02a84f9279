package main

import (
	"bufio"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestBadSettingExitsWithUsageStatus: a setting the gateway refuses (a flag's
// value out of range, a file's field out of its bounds) is a usage error, as
// a file it cannot parse or a stray argument is: exit status 2, with the
// error naming the setting. Before, such settings were refused by start and
// the process exited 1, the status of a gateway that failed while serving or
// shutting down, while "-procs x" (the flag package) and a misspelt field
// exited 2. The test runs main in a child process (this test binary).
func TestBadSettingExitsWithUsageStatus(t *testing.T) {
	if asMain(t) {
		return
	}
	file := filepath.Join(t.TempDir(), "gateway.json")
	require.NoError(t, os.WriteFile(file, []byte(`{"max_batch": 5000}`), 0o600))
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"-procs", "5000"}, "procs"},
		{[]string{"-batch-policy", "sometimes"}, "batch_policy"},
		{[]string{"-otel-sample", "2"}, "otel_sample"},
		{[]string{"-config", file}, "max_batch"},
	} {
		t.Run(strings.Join(tc.args[:1], " "), func(t *testing.T) {
			ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
			defer cancel()
			cmd, stderr := startMain(ctx, t, append([]string{"-addr", "127.0.0.1:0", "-http", "-"}, tc.args...))
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
			require.Contains(t, strings.Join(out, "\n"), tc.want, "the error names the setting")
		})
	}
}
