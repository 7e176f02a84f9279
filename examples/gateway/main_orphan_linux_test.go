package main

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestMainChildDiesWithTestBinary: a gateway child that startMain started
// (this test binary running main, serving on its ports until it is killed)
// dies with the test binary that started it, however that one ends. Before,
// startMain started it with cmd.Start alone: a test binary ended by go
// test's -timeout panic, a panic in another test or os.Exit runs no cleanup
// and no context's kill, and the gateway ran on, reparented, holding its
// ports. The test runs itself again as a middle process that starts a
// gateway child and exits at once; this process, made the subreaper of its
// descendants, inherits the orphaned gateway and waits for it to die.
func TestMainChildDiesWithTestBinary(t *testing.T) {
	if asMain(t) {
		return
	}
	if os.Getenv("TIERKIT_MAIN_ORPHAN") == "1" {
		cmd, stderr := startMain(t.Context(), t, []string{"-addr", "127.0.0.1:0", "-http", "-"})
		for sc := bufio.NewScanner(stderr); sc.Scan(); {
			if strings.Contains(sc.Text(), `msg="gateway serving"`) {
				break
			}
		}
		fmt.Printf("gateway pid=%d\n", cmd.Process.Pid)
		os.Exit(3) // as the -timeout panic does: no cleanup runs
	}
	const prSetChildSubreaper = 36
	if _, _, e := syscall.RawSyscall(syscall.SYS_PRCTL, prSetChildSubreaper, 1, 0); e != 0 {
		t.Skipf("prctl(PR_SET_CHILD_SUBREAPER): %v", e)
	}
	defer syscall.RawSyscall(syscall.SYS_PRCTL, prSetChildSubreaper, 0, 0)

	cmd := exec.Command(os.Args[0], "-test.run=^TestMainChildDiesWithTestBinary$", "-test.count=1")
	cmd.Env = append(os.Environ(), "TIERKIT_MAIN_ORPHAN=1")
	out, err := cmd.Output()
	var ee *exec.ExitError
	require.True(t, errors.As(err, &ee) && ee.ExitCode() == 3, "middle process: %v\n%s", err, out)
	m := regexp.MustCompile(`gateway pid=(\d+)`).FindSubmatch(out)
	require.NotNil(t, m, "%s", out)
	pid, err := strconv.Atoi(string(m[1]))
	require.NoError(t, err)

	// The orphan is this process's child now, so its pid stays its own
	// until it is reaped here. ECHILD: it died while the middle process
	// still ran, which reaped it.
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
	timer := time.NewTimer(time.Second)
	defer timer.Stop()
	select {
	case r := <-reaped:
		if r.err != syscall.ECHILD {
			require.NoError(t, r.err)
			require.True(t, r.ws.Signaled() && r.ws.Signal() == syscall.SIGKILL, "gateway ended by %v", r.ws)
		}
	case <-timer.C:
		_ = syscall.Kill(pid, syscall.SIGKILL)
		<-reaped
		t.Fatalf("gateway %d outlived the test binary that started it", pid)
	}
}
