//go:build !linux

package main

import "time"

// burn spends about d of CPU with the calibrated loop (no per-thread CPU clock
// here).
func burn(d time.Duration) { spin(int(itersPerMicro * float64(d.Microseconds()))) }

// spinSlowdown is unknown here (no per-thread CPU clock).
func spinSlowdown() float64 { return -1 }
