//go:build !unix

package cache_test

import "testing"

// cpuClock is a no-op where getrusage is not available.
type cpuClock struct{}

func startCPU() cpuClock { return cpuClock{} }

func (cpuClock) report(*testing.B) {}
