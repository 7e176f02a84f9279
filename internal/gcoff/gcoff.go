package gcoff

import (
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"testing"
)

// MappedBytes is the Go memory mapped and not returned to the OS: free heap
// and garbage included.
func MappedBytes() uint64 {
	s := []metrics.Sample{{Name: "/memory/classes/total:bytes"}, {Name: "/memory/classes/heap/released:bytes"}}
	metrics.Read(s)
	return s[0].Value.Uint64() - s[1].Value.Uint64()
}

// HeldBytes is the Go memory mapped, not returned to the OS, less the free
// heap: right after a collection, the live heap and the runtime's own memory,
// what the collector cannot reclaim. Unlike MappedBytes it does not depend on
// how much free heap earlier work left mapped, nor on whether that free heap
// is in runs large enough for the next allocation.
func HeldBytes() uint64 {
	s := []metrics.Sample{
		{Name: "/memory/classes/total:bytes"},
		{Name: "/memory/classes/heap/released:bytes"},
		{Name: "/memory/classes/heap/free:bytes"},
	}
	metrics.Read(s)
	total, released, free := s[0].Value.Uint64(), s[1].Value.Uint64(), s[2].Value.Uint64()
	return total - min(total, released+free)
}

// WithLimit sets GOGC=off and a Go memory limit of 4 times the memory mapped
// (128 MiB at least) until t ends, and returns the limit.
func WithLimit(t testing.TB) int64 {
	runtime.GC()
	limit := max(int64(4*MappedBytes()), 128<<20)
	oldPercent := debug.SetGCPercent(-1)
	oldLimit := debug.SetMemoryLimit(limit)
	t.Cleanup(func() {
		debug.SetMemoryLimit(oldLimit)
		debug.SetGCPercent(oldPercent)
	})
	return limit
}
