package main

import (
	"runtime"
	"syscall"
	"time"
)

// burn spends d of CPU on this goroutine's thread, measured with
// getrusage(RUSAGE_THREAD), so that a request costs the same CPU however busy the
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

func threadCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_THREAD, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
