//go:build !linux

package shed_test

import (
	"testing"
	"time"
)

// cpuNs reports nothing where there is no per-thread CPU clock.
func cpuNs(*testing.B) func() { return func() {} }

var wallStart = time.Now()

// threadCPU is wall time, in nanoseconds, where there is no per-thread CPU
// clock.
func threadCPU() int64 { return int64(time.Since(wallStart)) }
