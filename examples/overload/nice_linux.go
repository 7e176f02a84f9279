package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
	"unsafe"
)

// forEachThread calls f for every thread of this process, repeating until a
// pass finds no thread it had not seen (one started during the pass: on Linux
// a new thread inherits its creator's niceness and scheduling policy, so once
// every current thread is set, the threads the Go runtime starts later are
// too).
func forEachThread(f func(tid int) error) error {
	done := map[int]bool{}
	for range 10 {
		ents, err := os.ReadDir("/proc/self/task")
		if err != nil {
			return err
		}
		fresh := 0
		for _, e := range ents {
			tid, err := strconv.Atoi(e.Name())
			if err != nil || done[tid] {
				continue
			}
			if err := f(tid); err != nil {
				if err == syscall.ESRCH { // the thread ended
					continue
				}
				return err
			}
			done[tid] = true
			fresh++
		}
		if fresh == 0 {
			return nil
		}
	}
	return errors.New("threads kept appearing")
}

// Scheduling policies (sched.h).
const (
	schedOther = 0
	schedRR    = 2
)

// setPolicy moves every thread of this process to the scheduling policy
// (schedRR with a priority 1-99, or schedOther with 0). A real-time policy
// needs root or CAP_SYS_NICE; the kernel still keeps 5% of each second for
// the other processes (kernel.sched_rt_runtime_us).
func setPolicy(policy, prio int) error {
	param := struct{ prio int32 }{int32(prio)}
	err := forEachThread(func(tid int) error {
		if _, _, e := syscall.RawSyscall(syscall.SYS_SCHED_SETSCHEDULER, uintptr(tid), uintptr(policy), uintptr(unsafe.Pointer(&param))); e != 0 {
			return e
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("scheduling policy %d priority %d: %w (a real-time policy needs root or CAP_SYS_NICE)", policy, prio, err)
	}
	return checkThreads(fmt.Sprintf("scheduling policy %d", policy), policy, func(t threadSched) int { return t.policy })
}

// renice gives every thread of this process the scheduling niceness n (-20,
// the most favoured, to 19): on Linux a thread's niceness is its own. Lowering
// the niceness below its current value needs root or CAP_SYS_NICE.
func renice(n int) error {
	err := forEachThread(func(tid int) error { return syscall.Setpriority(syscall.PRIO_PROCESS, tid, n) })
	if err != nil {
		return fmt.Errorf("renice to %d: %w (a niceness below the current one needs root or CAP_SYS_NICE)", n, err)
	}
	return checkThreads(fmt.Sprintf("renice to %d", n), n, func(t threadSched) int { return t.nice })
}

// checkThreads reads every thread's scheduling back from /proc and reports
// one whose field (as get reads it) is not want.
func checkThreads(what string, want int, get func(threadSched) int) error {
	threads, err := readThreads()
	if err != nil {
		return err
	}
	for tid, t := range threads {
		if v := get(t); v != want {
			return fmt.Errorf("%s: thread %d is at %d", what, tid, v)
		}
	}
	return nil
}

// threadSched is a thread's scheduling as /proc shows it.
type threadSched struct{ nice, policy int }

// readThreads reads the niceness and scheduling policy of each thread of this
// process from /proc/self/task/*/stat (fields 19 and 41, counted after the
// command name, which may hold spaces and parentheses).
func readThreads() (map[int]threadSched, error) {
	ents, err := os.ReadDir("/proc/self/task")
	if err != nil {
		return nil, err
	}
	out := make(map[int]threadSched, len(ents))
	for _, e := range ents {
		tid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/self/task/" + e.Name() + "/stat")
		if err != nil {
			continue // the thread ended
		}
		i := bytes.LastIndexByte(b, ')')
		f := strings.Fields(string(b[i+1:])) // f[0] is field 3, the state
		if i < 0 || len(f) < 39 {
			return nil, fmt.Errorf("thread %d: unexpected stat line", tid)
		}
		nice, err1 := strconv.Atoi(f[16])
		policy, err2 := strconv.Atoi(f[38])
		if err1 != nil || err2 != nil {
			return nil, fmt.Errorf("thread %d: niceness %q, policy %q", tid, f[16], f[38])
		}
		out[tid] = threadSched{nice: nice, policy: policy}
	}
	return out, nil
}

// autogroupPath is this process's scheduling autogroup. With autogroups on
// (kernel.sched_autogroup_enabled), the CPU is shared between sessions first,
// each weighted by its autogroup's niceness, and a thread's own niceness counts
// only against the threads of its session: without moving the autogroup too, a
// process at -20 still shares the CPU equally with a service in another
// session.
const autogroupPath = "/proc/self/autogroup"

// reniceGroup sets the niceness of this process's autogroup (shared with the
// other processes of its session, such as the shell that started it) and
// returns a func that restores the previous value. Without autogroups it does
// nothing.
func reniceGroup(n int) (restore func() error, err error) {
	b, err := os.ReadFile(autogroupPath)
	if os.IsNotExist(err) {
		return func() error { return nil }, nil
	}
	if err != nil {
		return nil, fmt.Errorf("autogroup: %w", err)
	}
	old, err := parseAutogroup(string(b))
	if err != nil {
		return nil, err
	}
	write := func(v int) error {
		if err := os.WriteFile(autogroupPath, []byte(strconv.Itoa(v)), 0); err != nil {
			return fmt.Errorf("autogroup niceness %d: %w (below the current one needs root or CAP_SYS_NICE)", v, err)
		}
		return nil
	}
	if err := write(n); err != nil {
		return nil, err
	}
	return func() error { return write(old) }, nil
}

// parseAutogroup reads the niceness from an autogroup line such as
// "/autogroup-86 nice 0".
func parseAutogroup(s string) (int, error) {
	f := strings.Fields(s)
	if len(f) != 3 || f[1] != "nice" {
		return 0, fmt.Errorf("autogroup: unexpected %q", s)
	}
	n, err := strconv.Atoi(f[2])
	if err != nil {
		return 0, fmt.Errorf("autogroup: unexpected %q", s)
	}
	return n, nil
}

// niceness reports the calling thread's niceness.
func niceness() (int, error) {
	// The raw system call returns 20 - nice so that it is never negative.
	r, _, e := syscall.Syscall(syscall.SYS_GETPRIORITY, syscall.PRIO_PROCESS, 0, 0)
	if e != 0 {
		return 0, e
	}
	return 20 - int(r), nil
}
