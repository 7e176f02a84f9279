package main

import (
	"os"
	"path/filepath"
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
	dir := t.TempDir()
	file := filepath.Join(dir, "gateway.json")
	require.NoError(t, os.WriteFile(file, []byte(`{"max_batch": 5000}`), 0o600))
	// A negative setting that a component refuses (batcher, shed), and a
	// control_hosts name that control refuses: both were refused by start
	// alone, after main's check, and the process exited 1.
	negative := filepath.Join(dir, "negative.json")
	require.NoError(t, os.WriteFile(negative, []byte(`{"linger": "-1ms"}`), 0o600))
	hosts := filepath.Join(dir, "hosts.json")
	require.NoError(t, os.WriteFile(hosts, []byte(`{"control_hosts": ["localhost:6381"]}`), 0o600))
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"-procs", "5000"}, "procs"},
		{[]string{"-batch-policy", "sometimes"}, "batch_policy"},
		{[]string{"-otel-sample", "2"}, "otel_sample"},
		{[]string{"-otel-sample", "0.01"}, "otel_sample 0.01 (-otel-sample) with otel off"},
		{[]string{"-config", file}, "max_batch"},
		{[]string{"-config", negative}, "linger"},
		{[]string{"-config", hosts}, "control_hosts"},
	} {
		t.Run(tc.want, func(t *testing.T) {
			require.Contains(t, mainUsageError(t, tc.args), tc.want, "the error names the setting")
		})
	}
}
