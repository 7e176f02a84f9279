package scripts_test

import (
	"os/exec"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestTestShBuilds386WhereItCannotRun: where the kernel cannot execute 386
// binaries, test.sh builds the root module's 386 tests instead of running
// them, and that build must pass on a tree that compiles. It ran
// "go test -c -o DIR/ ./...", which go refuses when two packages share a
// name, as batcher/panicniltest and coalesce/panicniltest do ("cannot write
// test binary panicniltest.test for multiple packages"): on such a machine
// the README's test command failed on every run, before building anything.
// The stub go hands test.sh's 386 list and builds to the real go, the
// builds with -n (checked and planned, not compiled).
func TestTestShBuilds386WhereItCannotRun(t *testing.T) {
	realGo, err := exec.LookPath("go")
	require.NoError(t, err)
	goCases := `list*) [ "$GOARCH" = 386 ] && exec "` + realGo + `" "$@" ;;
"test -c -o "*) if [ "$GOARCH" = 386 ]; then
	shift
	"` + realGo + `" test -n "$@" >"$STUBDIR/n.out" 2>&1 || {
		while IFS= read -r l; do echo "$l" >&2; done <"$STUBDIR/n.out"
		exit 1
	}
fi ;;`
	out, goLog, err := runTestShGo(t, []byte("\x7fELF\x00\x00\x00\x00not a loadable binary"), goCases)
	require.NoError(t, err, "test.sh: %s\ngo commands:\n%s", out, goLog)
	require.Contains(t, out, "NOT run")
	require.Contains(t, goLog, build386)
}
