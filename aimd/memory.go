package aimd

import (
	"math"
	"runtime/debug"
	"runtime/metrics"
)

// goMemory returns the Go memory the collector cannot reclaim: everything the
// runtime mapped and did not return to the OS, less the free heap and the
// garbage (the heap objects beyond the live heap the last collection marked).
// Counting those two, as this did, the guard could not reset with GOGC=off
// and a GOMEMLIMIT (the setting Go's GC guide gives a process with a memory
// budget): the runtime keeps the heap it freed mapped up to 95% of the limit,
// so once live data had tripped the guard and was collected the reading stayed
// above MemoryLow and every request was refused for good; and garbage alone,
// which the collector frees as the heap nears the limit, tripped it
// (TestDefaultHeapBytesRecoversAfterCollection). Objects allocated since the
// last collection count once one has marked them: a Go memory limit makes it
// run as the memory nears the limit.
func goMemory() uint64 {
	s := []metrics.Sample{
		{Name: "/memory/classes/total:bytes"},
		{Name: "/memory/classes/heap/released:bytes"},
		{Name: "/memory/classes/heap/free:bytes"},
		{Name: "/memory/classes/heap/objects:bytes"},
		{Name: "/gc/heap/live:bytes"},
	}
	metrics.Read(s)
	for _, m := range s {
		if m.Value.Kind() != metrics.KindUint64 {
			return 0
		}
	}
	total, released, free := s[0].Value.Uint64(), s[1].Value.Uint64(), s[2].Value.Uint64()
	objects, live := s[3].Value.Uint64(), s[4].Value.Uint64()
	garbage := objects - min(live, objects)
	return total - min(total, released+free+garbage)
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
