package main

import (
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// An outside CPU burst, injected on purpose: other processes that take whole
// cores for a while, as the machine's own services sometimes do during a real
// run. Every real-mode run that failed its targets on the hosts measured so far
// followed such a burst (HISTORY.md); -burst reproduces one at a chosen moment,
// so that the tier's behaviour through it can be compared between versions.

// burstSpec is "at:for:procs": procs busy processes started at (into the
// measured run) that spin for for each.
type burstSpec struct {
	At, For time.Duration
	Procs   int
}

func (b burstSpec) String() string {
	if b.For == 0 {
		return ""
	}
	return fmt.Sprintf("%v:%v:%d", b.At, b.For, b.Procs)
}

// parseBurst parses "at:for:procs" (for example "10s:300ms:1"); "" is no burst.
func parseBurst(s string) (burstSpec, error) {
	if s == "" {
		return burstSpec{}, nil
	}
	parts := strings.Split(s, ":")
	if len(parts) != 3 {
		return burstSpec{}, fmt.Errorf("burst %q: want at:for:procs, such as 10s:300ms:1", s)
	}
	at, err1 := time.ParseDuration(parts[0])
	d, err2 := time.ParseDuration(parts[1])
	n, err3 := strconv.Atoi(parts[2])
	switch {
	case err1 != nil || err2 != nil || err3 != nil:
		return burstSpec{}, fmt.Errorf("burst %q: want at:for:procs, such as 10s:300ms:1", s)
	case at < 0 || d <= 0 || d > time.Minute || n < 1 || n > 64:
		return burstSpec{}, fmt.Errorf("burst %q: want at >= 0, 0 < for <= 1m and 1 <= procs <= 64", s)
	}
	return burstSpec{At: at, For: d, Procs: n}, nil
}

// spinEnv, when set in the environment to a duration, makes this program a
// burst process: it spins for that long and exits (see maybeSpin).
const spinEnv = "TIERKIT_OVERLOAD_SPIN"

// launchEnv makes this program a burst launcher: it starts the spinning
// process and exits at once, so that the spinner is not a child of the
// experiment's process, as the machine's other processes are not. (With -rt,
// the experiment reaping a starved child of its own was followed, in about a
// third of the runs, by 0.4-0.7 s of system time at 1-1.5 cores in the
// experiment's process: a disturbance of the harness's making that an outside
// process does not cause; HISTORY.md.)
const launchEnv = "TIERKIT_OVERLOAD_LAUNCH"

// spinReportEnv, when set to a file name, makes the spinner append its CPU
// time in nanoseconds to that file when it ends (for the tests).
const spinReportEnv = "TIERKIT_OVERLOAD_SPIN_REPORT"

// maybeSpin is the burst launcher's and the burst process's main: it reports
// false, doing nothing, when spinEnv is not set.
func maybeSpin() bool {
	v := os.Getenv(spinEnv)
	if v == "" {
		return false
	}
	d, err := time.ParseDuration(v)
	if err != nil || d <= 0 || d > time.Minute {
		fmt.Fprintf(os.Stderr, "overload: %s=%q: want a duration up to 1m\n", spinEnv, v)
		os.Exit(2)
	}
	if os.Getenv(launchEnv) != "" {
		if err := launchSpinner(); err != nil {
			fmt.Fprintln(os.Stderr, "overload: burst launcher:", err)
			os.Exit(2)
		}
		return true
	}
	if err := takeOutsidePriority(); err != nil {
		fmt.Fprintln(os.Stderr, "overload: burst process:", err)
		os.Exit(2)
	}
	for end := time.Now().Add(d); time.Now().Before(end); {
		spin(1000)
	}
	if path := os.Getenv(spinReportEnv); path != "" {
		cpu, _ := processCPU()
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
		if err == nil {
			fmt.Fprintln(f, int64(cpu))
			_ = f.Close()
		}
	}
	return true
}

// launchSpinner starts a copy of this program, without launchEnv, in a
// session of its own, and does not wait for it.
func launchSpinner() error {
	exe, err := os.Executable()
	if err != nil {
		return err
	}
	c := exec.Command(exe)
	// In a session of its own, as the machine's other services are: with
	// autogroups on, the kernel then shares the CPU between it and the
	// experiment's session as between any two sessions.
	c.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	c.Stdout, c.Stderr = os.Stderr, os.Stderr
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, launchEnv+"=") {
			c.Env = append(c.Env, kv)
		}
	}
	if err := c.Start(); err != nil {
		return err
	}
	return c.Process.Release()
}

// start launches the burst's processes after b.At and returns a func that
// waits for the burst to end (and reports the first error). The processes are
// copies of this program with spinEnv set, each started through a launcher
// (another copy) that exits at once; they end on their own after b.For.
func (b burstSpec) start() (wait func() error) {
	if b.For == 0 {
		return func() error { return nil }
	}
	errc := make(chan error, 1)
	if b.At <= 0 {
		go func() { errc <- b.run() }()
		return func() error { return <-errc }
	}
	timer := time.AfterFunc(b.At, func() { errc <- b.run() })
	return func() error {
		if !timer.Stop() {
			return <-errc
		}
		return nil // the run ended before the burst was due
	}
}

func (b burstSpec) run() error {
	exe, err := os.Executable()
	if err != nil {
		return err
	}
	start := time.Now()
	for range b.Procs {
		c := exec.Command(exe)
		c.Env = append(os.Environ(), launchEnv+"=1", spinEnv+"="+b.For.String())
		c.Env = append(c.Env, outsidePriorityEnv()...)
		c.Stdout, c.Stderr = os.Stderr, os.Stderr
		if err := c.Run(); err != nil { // the launcher, which exits at once
			return err
		}
	}
	time.Sleep(b.For - time.Since(start)) // the spinners are not ours to wait for
	return nil
}
