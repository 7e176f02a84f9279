package cputime

import (
	"syscall"
	"unsafe"
)

// Thread returns the calling OS thread's CPU time in nanoseconds, read with
// clock_gettime(CLOCK_THREAD_CPUTIME_ID), which has nanosecond precision
// (getrusage(RUSAGE_THREAD) advances only in scheduler ticks).
func Thread() (ns int64, ok bool) {
	const clockThreadCPUTimeID = 3
	var ts syscall.Timespec
	if _, _, e := syscall.RawSyscall(syscall.SYS_CLOCK_GETTIME, clockThreadCPUTimeID, uintptr(unsafe.Pointer(&ts)), 0); e != 0 {
		return 0, false
	}
	return ts.Nano(), true
}

// Process returns the process's CPU time (user + system) in nanoseconds.
func Process() (ns int64, ok bool) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0, false
	}
	return ru.Utime.Nano() + ru.Stime.Nano(), true
}
