//go:build !linux

package main

import "time"

// threadCPU reports that the thread's CPU clock is not read here: the chaos
// burn then spins on wall time.
func threadCPU() (time.Duration, bool) { return 0, false }
