package main

import (
	"fmt"
	"os"
	"strconv"
)

// The experiment's scheduling priority (-nice, -rt) and the burst processes'
// return to the priority of the machine's other processes.

// spinOtherEnv, when set, makes the burst process leave the real-time policy
// that it inherited from a process run with -rt for the normal one, before it
// spins.
const spinOtherEnv = "TIERKIT_OVERLOAD_SPIN_OTHER"

// realtime tells whether -rt put this process's threads in a real-time
// scheduling policy.
var realtime bool

// setRealtime moves every thread of this process to the real-time round-robin
// policy at priority prio (1-99): its threads then run ahead of every normal
// process whenever they are runnable (the burst's processes go back to the
// normal policy).
func setRealtime(prio int) error {
	if prio < 1 || prio > 99 {
		return fmt.Errorf("rt %d: want a priority from 1 to 99", prio)
	}
	if err := setPolicy(schedRR, prio); err != nil {
		return err
	}
	realtime = true
	return nil
}

// spinNiceEnv carries the niceness the burst process runs at: that of the
// processes outside the experiment, which -nice may have changed for it.
const spinNiceEnv = "TIERKIT_OVERLOAD_SPIN_NICE"

// outsideNice is the niceness this process started at, which the burst's
// processes, standing for the machine's other processes, run at; reniced
// tells whether -nice changed this process's.
var (
	outsideNice int
	reniced     bool
)

// setNice records the niceness the process started at for the burst's
// processes, then moves every thread of this process, and its session's
// autogroup, to n. The returned func restores the autogroup's niceness (the
// session outlives the process).
func setNice(n int) (restore func() error, err error) {
	cur, err := niceness()
	if err != nil {
		return nil, fmt.Errorf("nice: %w", err)
	}
	outsideNice, reniced = cur, true
	if err := renice(n); err != nil {
		return nil, err
	}
	return reniceGroup(n)
}

// outsidePriorityEnv is the environment that makes a burst process take the
// priority of the machine's other processes back (see takeOutsidePriority).
func outsidePriorityEnv() []string {
	var env []string
	if reniced {
		env = append(env, spinNiceEnv+"="+strconv.Itoa(outsideNice))
	}
	if realtime {
		env = append(env, spinOtherEnv+"=1")
	}
	return env
}

// takeOutsidePriority, in a burst process, leaves the real-time policy and
// the niceness inherited from an experiment run with -rt or -nice for those of
// the machine's other processes; both moves are always allowed.
func takeOutsidePriority() error {
	if os.Getenv(spinOtherEnv) != "" {
		if err := setPolicy(schedOther, 0); err != nil {
			return err
		}
	}
	if n, err := strconv.Atoi(os.Getenv(spinNiceEnv)); err == nil {
		if cur, err := niceness(); err == nil && cur != n {
			return renice(n)
		}
	}
	return nil
}
