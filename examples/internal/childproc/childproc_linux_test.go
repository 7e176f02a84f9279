package childproc

import (
	"errors"
	"io"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/internal/leak"
)

// childEnv makes this test binary a child that reads its stdin to the end
// and exits 0.
const childEnv = "CHILDPROC_TEST_CHILD"

// TestMain also fails the run when the tests left a goroutine behind (a
// Start that did not return its starter's answer, a copier of a child's
// output still running); Start's own starter predates the check.
func TestMain(m *testing.M) {
	if os.Getenv(childEnv) == "1" {
		_, _ = io.Copy(io.Discard, os.Stdin)
		os.Exit(0)
	}
	os.Exit(leak.Main(m))
}

// TestChildOutlivesCallingThread: the parent-death signal comes when the
// thread that started the child exits, not the process. A caller on a
// goroutine locked to its thread that returns without unlocking ends that
// thread; Start must not have started the child from it, or the child is
// killed while the test binary still runs.
func TestChildOutlivesCallingThread(t *testing.T) {
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), childEnv+"=1")
	stdin, err := cmd.StdinPipe()
	require.NoError(t, err)
	tid := onEndingThread(t, func() { err = Start(cmd) })
	require.NoError(t, err)
	require.Equal(t, syscall.SIGKILL, cmd.SysProcAttr.Pdeathsig)

	// Bounded poll: a thread's end sends no event this process can wait on.
	task := "/proc/self/task/" + strconv.Itoa(tid)
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(time.Millisecond) {
		if _, err := os.Stat(task); errors.Is(err, os.ErrNotExist) {
			break
		}
		if time.Now().After(deadline) {
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
			t.Fatalf("thread %d, locked by a goroutine that ended, still runs", tid)
		}
	}
	require.NoError(t, stdin.Close())
	require.NoError(t, cmd.Wait(), "the child ended when the caller's thread did")
}

// onEndingThread runs f on a goroutine locked to its thread that returns
// without unlocking, so that the runtime ends the thread, and returns the
// thread's id once f returned. The runtime never ends the main thread (a
// goroutine locked to it that exits leaves it idle): a try that lands there
// keeps it until the test ends, and the next try runs on another thread.
func onEndingThread(t *testing.T, f func()) (tid int) {
	hold := make(chan struct{})
	t.Cleanup(func() { close(hold) })
	for range 2 { // only one try can hold the main thread
		got := make(chan int, 1)
		go func() {
			runtime.LockOSThread()
			if syscall.Gettid() == syscall.Getpid() {
				got <- 0
				<-hold
				runtime.UnlockOSThread()
				return
			}
			f()
			got <- syscall.Gettid() // never unlocked: the thread ends with this goroutine
		}()
		if tid = <-got; tid != 0 {
			return tid
		}
	}
	t.Fatal("no goroutine ran off the main thread")
	return 0
}
