package scripts_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// runCIRun runs a copy of .ci/run in a tree of its own, whose
// scripts/setup.sh does nothing and scripts/test.sh leaves a mark, with a
// PATH of stubs: git runs gitBody, gofmt -l lists the files it is given
// whose names start with "bad" (unformatted) and reads its standard input
// when given none, as the real one does, and go does nothing but name its version and install a
// staticcheck that passes. It returns .ci/run's output, its exit error and
// whether it reached scripts/test.sh.
func runCIRun(t *testing.T, gitBody string) (out string, err error, tested bool) {
	t.Helper()
	bash, lookErr := exec.LookPath("bash")
	if lookErr != nil {
		t.Skip("no bash")
	}
	tree, bin := t.TempDir(), t.TempDir()
	write := func(path, body string) {
		require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
		require.NoError(t, os.WriteFile(path, []byte("#!/bin/sh\n"+body+"\n"), 0o755))
	}
	run, readErr := os.ReadFile("../.ci/run")
	require.NoError(t, readErr)
	require.NoError(t, os.MkdirAll(filepath.Join(tree, ".ci"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(tree, ".ci", "run"), run, 0o755))
	for _, mod := range []string{"examples", "bench"} {
		require.NoError(t, os.MkdirAll(filepath.Join(tree, mod), 0o755))
	}
	mark := filepath.Join(tree, "tested")
	write(filepath.Join(tree, "scripts", "setup.sh"), "exit 0")
	write(filepath.Join(tree, "scripts", "test.sh"), `touch "`+mark+`"`)
	write(filepath.Join(bin, "git"), gitBody)
	write(filepath.Join(bin, "gofmt"), `[ "$1" = -l ] || exit 2
shift
[ $# -gt 0 ] || { cat >/dev/null; exit 0; }
for f; do case $f in bad*) echo "$f" ;; esac; done`)
	write(filepath.Join(bin, "go"), `case "$*" in
"env GOVERSION") echo go1.26.0 ;;
install*) printf '#!/bin/sh\nexit 0\n' >"$GOBIN/staticcheck" && chmod +x "$GOBIN/staticcheck" ;;
esac
exit 0`)
	for _, name := range []string{"cat", "chmod", "date", "dirname", "env", "mkdir", "mktemp", "printf", "rm", "touch"} {
		p, lookErr := exec.LookPath(name)
		require.NoError(t, lookErr)
		require.NoError(t, os.Symlink(p, filepath.Join(bin, name)))
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bash, filepath.Join(tree, ".ci", "run"))
	cmd.Env = append(os.Environ(), "PATH="+bin, "TMPDIR="+t.TempDir())
	outBytes, err := cmd.CombinedOutput()
	require.NoError(t, ctx.Err(), ".ci/run: %s", outBytes)
	_, statErr := os.Stat(mark)
	return string(outBytes), err, statErr == nil
}

// TestCIRunGofmtWithoutGit: .ci/run's gofmt check takes its files from git
// ls-files. Where git fails (a tree that is no checkout, or one git refuses
// as owned by another user, as in many CI containers), the list was empty,
// gofmt -l read its standard input instead (empty in CI, a terminal it
// waited on otherwise) and reported nothing: the check passed without
// looking at a file. It fails the run now.
func TestCIRunGofmtWithoutGit(t *testing.T) {
	out, err, tested := runCIRun(t, `echo "fatal: detected dubious ownership in repository" >&2; exit 128`)
	require.Error(t, err, ".ci/run passed without its gofmt check: %s", out)
	assert.False(t, tested, "scripts/test.sh ran: %s", out)
	assert.Contains(t, out, "dubious ownership")

	// The stubbed run reaches the tests when git lists files that gofmt
	// leaves alone, and stops when gofmt reports one.
	out, err, tested = runCIRun(t, `printf 'good.go\nfine.go\n'`)
	require.NoError(t, err, "%s", out)
	assert.True(t, tested, "scripts/test.sh did not run: %s", out)
	out, err, tested = runCIRun(t, `printf 'good.go\nbad.go\n'`)
	require.Error(t, err, "%s", out)
	assert.Contains(t, out, "gofmt would change: bad.go")
	assert.False(t, tested, "scripts/test.sh ran: %s", out)
}
