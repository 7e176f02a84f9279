package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

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
			require.Contains(t, mainUsageError(t, tc.args), tc.want, "the error names the setting")
		})
	}
}
