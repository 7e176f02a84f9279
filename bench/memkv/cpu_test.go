package memkv_test

import (
	"syscall"
	"testing"
	"time"
)

// cpuMeter reports, when its result is called after the loop, the process
// CPU time (user + system, all threads, GC included) per operation as
// "cpu-ns/op". On a shared, overloaded machine wall time per operation
// includes the time the benchmark waited for a core; CPU time does not, so
// the two together tell the cost from the wait.
func cpuMeter(b *testing.B) func() {
	start := cpuNow()
	return func() {
		if b.N > 0 {
			b.ReportMetric(float64(cpuNow()-start)/float64(b.N), "cpu-ns/op")
		}
	}
}

func cpuNow() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
