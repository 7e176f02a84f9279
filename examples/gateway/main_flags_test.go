package main

import (
	"bufio"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestFlagsOverrideFile: a flag given on the command line wins over the
// configuration file, its zero value too. -procs 0 (the flag's help: "default:
// the Go runtime's") was taken for a flag not given, and a file's "procs": 1
// kept the gateway on one P; likewise -tls-cert "" -tls-key "" could not
// turn off the file's TLS. The test runs main in a child process (this test
// binary) and reads its "gateway serving" line.
func TestFlagsOverrideFile(t *testing.T) {
	if asMain(t) {
		return
	}
	dir := t.TempDir()
	config := func(name, js string) string {
		path := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(path, []byte(`{"addr": "127.0.0.1:0", "http_addr": "-", `+js+`}`), 0o600))
		return path
	}
	// The child's runtime default is its GOMAXPROCS variable, 3 (runMain).
	line := runMain(t, "-config", config("procs.json", `"procs": 1`), "-procs", "0")
	require.True(t, strings.HasSuffix(line, " procs=3"), "want the runtime's default, 3, not the file's 1: %s", line)
	tls := config("tls.json", `"tls_cert": "missing-cert.pem", "tls_key": "missing-key.pem"`)
	runMain(t, "-config", tls, "-tls-cert", "", "-tls-key", "")
}

// runMain runs main with args in a child process, returns its "gateway
// serving" log line and kills it. The child's GOMAXPROCS is 3 by default.
func runMain(t *testing.T, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	cmd, stderr := startMain(ctx, t, args, "GOMAXPROCS=3")
	defer func() { _ = cmd.Wait() }()
	var out []string
	for sc := bufio.NewScanner(stderr); sc.Scan(); { // bounded: the child exits by the context's deadline
		out = append(out, sc.Text())
		if strings.Contains(sc.Text(), `msg="gateway serving"`) {
			require.NoError(t, cmd.Process.Kill())
			return sc.Text()
		}
	}
	t.Fatalf("main did not serve:\n%s", strings.Join(out, "\n"))
	return ""
}
