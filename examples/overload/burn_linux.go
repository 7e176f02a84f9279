package main

import (
	"runtime"
	"syscall"
	"time"
	"unsafe"
)

// burn spends d of CPU on this goroutine's thread, measured with
// clock_gettime(CLOCK_THREAD_CPUTIME_ID), so that a request costs the same CPU however busy the
// machine is (a calibrated loop would cost less or more as the CPU is shared).
func burn(d time.Duration) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	start := threadCPU()
	chunk := max(1, int(itersPerMicro*10)) // about 10 µs between clock reads
	for threadCPU()-start < d {
		spin(chunk)
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
