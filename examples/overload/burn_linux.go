package main

import (
	"syscall"
	"time"
	"unsafe"
)

// burn spends d of CPU, measured on the thread's CPU clock
// (clock_gettime(CLOCK_THREAD_CPUTIME_ID)), so that a request costs the same CPU
// however busy the machine is (a calibrated loop alone would cost less or more
// as the CPU is shared).
//
// It does not lock the goroutine to its thread: a locked goroutine that the
// scheduler parks (for a GC, a preemption) must later be handed its own thread
// back, a futex round trip between threads each time, and with thousands of
// requests in flight those handoffs left a core idle and drove the shedder's
// mutex into a convoy (measured: the process stuck at 1 of 2 cores with the
// limit at its maximum). Instead each chunk of spinning is timed on its own: a
// chunk during which the goroutine moved to another thread shows a delta from
// two different clocks, and counts as its calibrated length instead.
func burn(d time.Duration) {
	chunk := max(1, int(itersPerMicro*10)) // about 10 µs per chunk
	const nominal = 10 * time.Microsecond
	var spent time.Duration
	prev := threadCPU()
	for spent < d {
		spin(chunk)
		now := threadCPU()
		dt := now - prev
		if dt <= 0 || dt > 100*nominal { // moved to another thread mid-chunk
			dt = nominal
		}
		spent, prev = spent+dt, now
	}
}

// threadCPU reads the calling thread's CPU clock (nanosecond precision;
// getrusage(RUSAGE_THREAD) advances in scheduler ticks).
func threadCPU() time.Duration {
	const clockThreadCPUTimeID = 3
	var ts syscall.Timespec
	if _, _, e := syscall.RawSyscall(syscall.SYS_CLOCK_GETTIME, clockThreadCPUTimeID, uintptr(unsafe.Pointer(&ts)), 0); e != 0 {
		return 0
	}
	return time.Duration(ts.Nano())
}

// spinSlowdown times a spin of about 20 µs (as calibrated at start) on the
// thread's CPU clock and returns its CPU time over the calibrated time: about
// 1 on an idle core, more when the core runs slower for this process (a busy
// sibling hyperthread, a host-level slowdown the guest cannot see as steal).
// It returns -1 when the goroutine moved threads during the spin.
func spinSlowdown() float64 {
	const nominal = 20 * time.Microsecond
	n := max(1, int(itersPerMicro*20))
	t0 := threadCPU()
	spin(n)
	dt := threadCPU() - t0
	if dt <= 0 || dt > 1000*nominal {
		return -1
	}
	return float64(dt) / float64(nominal)
}
