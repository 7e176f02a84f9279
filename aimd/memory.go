package aimd

import (
	"math"
	"runtime/debug"
	"runtime/metrics"
)

// goMemory returns the Go memory that GOMEMLIMIT governs: everything the runtime
// mapped minus heap memory returned to the OS.
func goMemory() uint64 {
	s := []metrics.Sample{
		{Name: "/memory/classes/total:bytes"},
		{Name: "/memory/classes/heap/released:bytes"},
	}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 || s[1].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return s[0].Value.Uint64() - s[1].Value.Uint64()
}

// guard applies the hysteresis: trip at or above high, reset below low.
// The marks compare as quotients: heap/limit rounds to the mark itself when
// the heap is exactly at it, whereas mark x limit may round above a whole
// number of bytes (0.56 x 100000 is 56000.00000000001).
func guard(tripped bool, heap, limit, high, low float64) bool {
	if limit <= 0 {
		return false
	}
	if tripped {
		return heap/limit >= low
	}
	return heap/limit >= high
}

// goMemLimit returns the Go memory limit in force (GOMEMLIMIT, or what
// debug.SetMemoryLimit set since), 0 when there is none. A limit of 0 bytes
// reads 0 as well: no guard (Config.MemoryLimit says why).
func goMemLimit() float64 {
	if l := debug.SetMemoryLimit(-1); l != math.MaxInt64 {
		return float64(l)
	}
	return 0
}
