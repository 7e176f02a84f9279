//go:build linux

package hashring

import (
	"syscall"
	"time"
	"unsafe"
)

// threadCPU reads the calling thread's CPU clock,
// clock_gettime(CLOCK_THREAD_CPUTIME_ID). On a machine shared with other work,
// wall time includes the time the test was descheduled; the thread's CPU time
// does not. Callers lock their goroutine to its thread (runtime.LockOSThread).
func threadCPU() time.Duration {
	const clockThreadCPUTimeID = 3
	var ts syscall.Timespec
	if _, _, e := syscall.RawSyscall(syscall.SYS_CLOCK_GETTIME, clockThreadCPUTimeID, uintptr(unsafe.Pointer(&ts)), 0); e != 0 {
		return 0
	}
	return time.Duration(ts.Nano())
}
