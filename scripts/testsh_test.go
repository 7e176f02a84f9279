package scripts_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// runTestSh runs test.sh with PATH set to setup.sh's stubs, a go that
// records its arguments (with GOARCH) and, asked to build the 386 probe
// (internal/leak's test binary), copies probe there; and links to the real
// programs test.sh calls. It returns test.sh's output, the go commands it
// ran (one a line) and its exit error.
func runTestSh(t *testing.T, probe []byte) (out, goLog string, err error) {
	t.Helper()
	return runTestShGo(t, probe, "")
}

// runTestShGo is runTestSh with goCases, more arms of the stub go's case on
// its arguments ("$*"), tried after the probe's; the stub's folder is
// $STUBDIR in them.
func runTestShGo(t *testing.T, probe []byte, goCases string) (out, goLog string, err error) {
	t.Helper()
	bash, lookErr := exec.LookPath("bash")
	if lookErr != nil {
		t.Skip("no bash")
	}
	dir, _ := stubTools(t, "redis-server", "redis-cli", "redis-benchmark", "chromium", "nutcracker")
	logPath := filepath.Join(dir, "go.log")
	probePath := filepath.Join(dir, "probe")
	require.NoError(t, os.WriteFile(probePath, probe, 0o755))
	goStub := `#!/bin/sh
echo "GOARCH=${GOARCH:-} $*" >>"` + logPath + `"
[ "$*" = "env CC" ] && echo "` + filepath.Join(dir, "cc") + `"
STUBDIR="` + dir + `"
case "$*" in
"test -c -o "*"/probe.test ./internal/leak") cp "` + probePath + `" "$4" && chmod +x "$4" ;;
` + goCases + `
esac
exit 0
`
	require.NoError(t, os.WriteFile(filepath.Join(dir, "go"), []byte(goStub), 0o755))
	for _, name := range []string{"bash", "chmod", "cp", "dirname", "grep", "mkdir", "mktemp", "rm"} {
		p, lookErr := exec.LookPath(name)
		require.NoError(t, lookErr)
		require.NoError(t, os.Symlink(p, filepath.Join(dir, name)))
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bash, "test.sh")
	// Without the GOARCH of this test's own run: test.sh's 386 run runs this
	// package with GOARCH=386, which every go command of the stubbed run
	// then recorded, as if test.sh had asked for the 386 tests throughout.
	env := slices.DeleteFunc(os.Environ(), func(kv string) bool { return strings.HasPrefix(kv, "GOARCH=") })
	cmd.Env = append(env, "PATH="+dir, "TMPDIR="+t.TempDir())
	outBytes, err := cmd.CombinedOutput()
	require.NoError(t, ctx.Err(), "test.sh: %s", outBytes)
	logBytes, readErr := os.ReadFile(logPath)
	require.NoError(t, readErr)
	return string(outBytes), string(logBytes), err
}

// The 386 test runs as test.sh's stub go records it.
const (
	run386   = "GOARCH=386 test -exec "
	build386 = "GOARCH=386 test -c -o "
	vet386   = "GOARCH=386 vet ./...\n"
)

// TestTestShProbeCrash: the 386 probe starts and crashes, as a 32-bit-only
// fault in the runtime or in an init would. Any failure of the probe was read
// as "this machine cannot run 386 binaries": test.sh built and vetted the 386
// tests, said "NOT run" and exited 0, so the crash passed unseen. Now only the
// kernel's refusal to execute means that; this fails the run with the probe's
// output, and the 386 tests still run.
func TestTestShProbeCrash(t *testing.T) {
	out, goLog, err := runTestSh(t, []byte("#!/bin/sh\n"+
		"echo 'fatal error: unexpected signal during runtime execution' >&2\nexit 2\n"))
	require.Error(t, err, "test.sh exited 0: %s", out)
	require.Contains(t, out, "fatal error: unexpected signal")
	require.NotContains(t, out, "NOT run")
	require.Contains(t, goLog, run386)
}

// TestTestShProbeCannotExec: a probe the kernel refuses (ENOEXEC, as a 386
// binary on a kernel without IA32 emulation) is the one case of "cannot run
// 386 binaries": the 386 tests are built and vetted, the run says "NOT run"
// and passes.
func TestTestShProbeCannotExec(t *testing.T) {
	out, goLog, err := runTestSh(t, []byte("\x7fELF\x00\x00\x00\x00not a loadable binary"))
	require.NoError(t, err, "test.sh: %s", out)
	require.Contains(t, out, "NOT run")
	require.Contains(t, goLog, build386)
	require.Contains(t, goLog, vet386)
	require.NotContains(t, goLog, run386)
}

// TestTestShProbeRuns: a probe that runs means the 386 tests run.
func TestTestShProbeRuns(t *testing.T) {
	out, goLog, err := runTestSh(t, []byte("#!/bin/sh\nexit 0\n"))
	require.NoError(t, err, "test.sh: %s", out)
	require.NotContains(t, out, "NOT run")
	require.Contains(t, goLog, run386)
	require.NotContains(t, goLog, vet386)
}
