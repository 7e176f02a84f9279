package aimd

import (
	"math"
	"runtime/debug"
	"runtime/metrics"
)

// goMemory returns the default reading of the Go memory for a guard whose
// limit is limit bytes (0 or less: the Go memory limit). It counts everything
// the runtime mapped, less the heap released to the OS and the free heap (the
// garbage a collection found is free heap once swept), and leaves out the heap
// objects allocated since the last collection (those beyond the live heap it
// marked) when a collection is bound to mark or free them before the memory
// reaches the guard's limit: when the Go memory limit is at or below it, as
// the collector runs as the memory nears that limit. Counting the free heap
// and those objects, the guard could not reset with GOGC=off and a GOMEMLIMIT
// (the setting Go's GC guide gives a process with a memory budget): the
// runtime keeps the heap it freed mapped up to 95% of the limit, and garbage
// alone, which the collector frees as the heap nears the limit, tripped it
// (TestDefaultHeapBytesRecoversAfterCollection). Under a
// [Config.MemoryLimit] below the Go memory limit (or with none, GOGC=100)
// nothing makes a collection run before the memory passes the guard's limit,
// so the objects allocated since the last one count: left out, live data at
// 93% of the limit tripped nothing
// (TestDefaultHeapBytesConfigLimitCountsNewHeap).
func goMemory(limit int64) uint64 {
	s := []metrics.Sample{
		{Name: "/memory/classes/total:bytes"},
		{Name: "/memory/classes/heap/released:bytes"},
		{Name: "/memory/classes/heap/free:bytes"},
		{Name: "/memory/classes/heap/objects:bytes"},
		{Name: "/gc/heap/live:bytes"},
		{Name: "/gc/gomemlimit:bytes"},
	}
	metrics.Read(s)
	for _, m := range s {
		if m.Value.Kind() != metrics.KindUint64 {
			return 0
		}
	}
	total, released, free := s[0].Value.Uint64(), s[1].Value.Uint64(), s[2].Value.Uint64()
	inUse := total - min(total, released+free)
	if limit > 0 && s[5].Value.Uint64() > uint64(limit) {
		return inUse
	}
	objects, live := s[3].Value.Uint64(), s[4].Value.Uint64()
	return inUse - min(inUse, objects-min(live, objects))
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
