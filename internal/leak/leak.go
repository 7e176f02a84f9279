package leak

import (
	"fmt"
	"io"
	"os"
	"runtime"
	"sort"
	"strings"
	"testing"
	"time"
)

// settle is how long Check lets goroutines that are already on their way out finish
// (a Close that returned after signalling its workers, say) before it reports them.
// It bounds a poll, it is not a wait for a condition the test could observe directly.
var settle = 5 * time.Second

// Check records the goroutines alive now and registers a cleanup on t that fails the
// test if any goroutine started after this call is still alive when the test ends.
//
// Call it first in the test, before anything that starts goroutines:
//
//	func TestX(t *testing.T) {
//		leak.Check(t)
//		...
//	}
//
// Tests using Check must not run in parallel with other tests of the package, since
// their goroutines would be counted.
func Check(t testing.TB) {
	t.Helper()
	before := Snapshot()
	t.Cleanup(func() {
		if extra := settled(before); len(extra) > 0 {
			t.Errorf("leak: %d goroutine(s) still running after the test:\n\n%s",
				len(extra), strings.Join(extra, "\n\n"))
		}
	})
}

// Main runs the tests of m and, if they passed, fails the run when goroutines
// started during it are still alive once the same bounded settle as Check's has
// passed. It covers every test of a package, in a bubble or not, without each
// calling Check. It returns the exit code:
//
//	func TestMain(m *testing.M) { os.Exit(leak.Main(m)) }
func Main(m interface{ Run() int }) int {
	before := Snapshot()
	if code := m.Run(); code != 0 {
		return code
	}
	if extra := settled(before); len(extra) > 0 {
		fmt.Fprintf(stderr, "leak: %d goroutine(s) still running after the tests:\n\n%s\n",
			len(extra), strings.Join(extra, "\n\n"))
		return 1
	}
	return 0
}

// stderr is where Main reports; a variable for its own test.
var stderr io.Writer = os.Stderr

// retrying, when set (by tests), runs each time settled found goroutines
// alive and is about to look again.
var retrying func()

// settled polls, with a short backoff and for at most settle, until no goroutine
// started since before is alive, and returns the stacks of those still alive.
func settled(before map[uint64]bool) []string {
	deadline := time.Now().Add(settle)
	for backoff := time.Microsecond; ; backoff = min(2*backoff, 10*time.Millisecond) {
		extra := leaked(before, snapshot())
		if len(extra) == 0 || time.Now().After(deadline) {
			return extra
		}
		if retrying != nil {
			retrying()
		}
		runtime.Gosched()
		time.Sleep(backoff)
	}
}

// Leaked returns the stacks of goroutines alive now that were not in before and
// are not the runtime's or the testing package's own. It is exported for tests
// that want to assert at a point other than cleanup.
func Leaked(before map[uint64]bool) []string { return leaked(before, snapshot()) }

// Snapshot returns the ids of the goroutines alive now, for use with Leaked.
func Snapshot() map[uint64]bool {
	ids := make(map[uint64]bool)
	for id := range snapshot() {
		ids[id] = true
	}
	return ids
}

func leaked(before map[uint64]bool, now map[uint64]string) []string {
	var out []string
	for id, stack := range now {
		if before[id] || ignorable(stack) {
			continue
		}
		out = append(out, stack)
	}
	sort.Strings(out)
	return out
}

// ignorable reports whether a goroutine belongs to the runtime or the test harness
// rather than to the code under test. It reads the goroutine's own frames only:
// under GODEBUG=tracebackancestors the stacks of the goroutines that created it
// follow them, and those of any goroutine a test starts hold testing.(*T).Run.
func ignorable(stack string) bool {
	stack, _, _ = strings.Cut(stack, "\n[originating from goroutine ")
	for _, s := range []string{
		"os/signal.signal_recv",
		"os/signal.loop",
		"runtime.ReadTrace",
		"testing.(*T).Run(",
		"testing.runFuzzing(",
	} {
		if strings.Contains(stack, s) {
			return true
		}
	}
	return false
}

// snapshot maps goroutine id to its stack, for every goroutine alive now.
func snapshot() map[uint64]string {
	buf := make([]byte, 1<<20)
	for {
		n := runtime.Stack(buf, true)
		if n < len(buf) {
			buf = buf[:n]
			break
		}
		buf = make([]byte, 2*len(buf))
	}
	out := make(map[uint64]string)
	for _, g := range strings.Split(string(buf), "\n\n") {
		var id uint64
		if _, err := fmt.Sscanf(g, "goroutine %d ", &id); err == nil {
			out[id] = g
		}
	}
	return out
}
