//go:build !linux

package hashring

import "time"

var wallStart = time.Now()

// threadCPU is wall time where there is no per-thread CPU clock.
func threadCPU() time.Duration { return time.Since(wallStart) }
