package main

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestRedisServerDiesWithTestBinary: a test binary that dies without running
// its cleanups (go test's -timeout panic, a panic in another test, os.Exit)
// leaves no redis-server behind. The test runs itself again as a child that
// starts a server and exits at once; this process, made the subreaper of its
// descendants, inherits the orphaned server and waits for it to die.
func TestRedisServerDiesWithTestBinary(t *testing.T) {
	if os.Getenv("TIERKIT_ORPHAN_CHILD") == "1" {
		r := startRedis(t)
		fmt.Printf("redis-server pid=%d\n", r.cmd.Process.Pid)
		os.Exit(3) // as the -timeout panic does: no cleanup runs
	}
	const prSetChildSubreaper = 36
	if _, _, e := syscall.RawSyscall(syscall.SYS_PRCTL, prSetChildSubreaper, 1, 0); e != 0 {
		t.Skipf("prctl(PR_SET_CHILD_SUBREAPER): %v", e)
	}
	defer syscall.RawSyscall(syscall.SYS_PRCTL, prSetChildSubreaper, 0, 0)

	cmd := exec.Command(os.Args[0], "-test.run=^TestRedisServerDiesWithTestBinary$", "-test.count=1")
	cmd.Env = append(os.Environ(), "TIERKIT_ORPHAN_CHILD=1")
	out, err := cmd.Output()
	var ee *exec.ExitError
	require.True(t, errors.As(err, &ee) && ee.ExitCode() == 3, "child: %v\n%s", err, out)
	m := regexp.MustCompile(`redis-server pid=(\d+)`).FindSubmatch(out)
	require.NotNil(t, m, "%s", out)
	pid, err := strconv.Atoi(string(m[1]))
	require.NoError(t, err)

	// The orphan is this process's child now, so its pid stays its own
	// until it is reaped here.
	// ECHILD: the server died while the dying child still ran, which reaped
	// it.
	type result struct {
		ws  syscall.WaitStatus
		err error
	}
	reaped := make(chan result, 1)
	go func() {
		var r result
		for {
			_, r.err = syscall.Wait4(pid, &r.ws, 0, nil)
			if r.err != syscall.EINTR {
				break
			}
		}
		reaped <- r
	}()
	select {
	case r := <-reaped:
		if r.err != syscall.ECHILD {
			require.NoError(t, r.err)
			require.True(t, r.ws.Signaled() && r.ws.Signal() == syscall.SIGKILL, "redis-server ended by %v", r.ws)
		}
	case <-time.After(time.Second):
		_ = syscall.Kill(pid, syscall.SIGKILL)
		<-reaped
		t.Fatalf("redis-server %d outlived the test binary that started it", pid)
	}
}
