package leak

import (
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// ancestorsChild makes this test binary run TestLeakedWithTracebackAncestors
// as the child, under GODEBUG=tracebackancestors.
const ancestorsChild = "LEAK_TEST_ANCESTORS_CHILD"

// TestLeakedWithTracebackAncestors: GODEBUG=tracebackancestors=N, what one
// sets to see where a reported goroutine came from, appends to each stack
// the stacks of the goroutines that created it. Those of any goroutine a
// test starts hold the frame testing.(*T).Run (the test's own goroutine was
// started by it), which ignorable reads as the harness's own: every leak
// went unreported as soon as one asked where it came from. The setting is
// read at start-up only, so the check runs in a child of its own.
func TestLeakedWithTracebackAncestors(t *testing.T) {
	if os.Getenv(ancestorsChild) == "1" {
		before := Snapshot()
		stop := make(chan struct{})
		defer close(stop)
		started := make(chan struct{})
		go func() {
			close(started)
			<-stop
		}()
		<-started
		extra := Leaked(before)
		require.Len(t, extra, 1, "the blocked goroutine is reported")
		require.Contains(t, extra[0], "[originating from goroutine", "no ancestors: the test shows nothing")
		return
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestLeakedWithTracebackAncestors$", "-test.v")
	godebug := "tracebackancestors=10"
	if v := os.Getenv("GODEBUG"); v != "" {
		godebug = v + "," + godebug
	}
	env := slices.DeleteFunc(os.Environ(), func(kv string) bool { return strings.HasPrefix(kv, "GODEBUG=") })
	cmd.Env = append(env, ancestorsChild+"=1", "GODEBUG="+godebug)
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s", out)
	require.Contains(t, string(out), "--- PASS: TestLeakedWithTracebackAncestors", "%s", out)
}
