//go:build !linux

package aimdbench

import "testing"

// cpuNs reports nothing where there is no per-thread CPU clock.
func cpuNs(*testing.B) func() { return func() {} }
