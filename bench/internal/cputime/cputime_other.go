//go:build !linux

package cputime

// Thread reports ok = false: the thread CPU clock is read only on Linux.
func Thread() (ns int64, ok bool) { return 0, false }

// Process reports ok = false: the process CPU clock is read only on Linux.
func Process() (ns int64, ok bool) { return 0, false }
