//go:build unix

package cache_test

import (
	"syscall"
	"testing"
	"time"
)

// cpuClock measures the process's CPU time (user+system) over a benchmark. On a
// machine shared with other work, wall-clock ns/op moves with the neighbours' load;
// CPU time spent by this process per op moves much less.
type cpuClock struct{ start time.Duration }

func startCPU() cpuClock { return cpuClock{start: processCPU()} }

// report adds cpu-ns/op to b's results.
func (c cpuClock) report(b *testing.B) {
	b.ReportMetric(float64(processCPU()-c.start)/float64(b.N), "cpu-ns/op")
}

func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
