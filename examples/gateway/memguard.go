package main

import rtmetrics "runtime/metrics"

// memoryInUse is the Go memory the collector cannot reclaim, which the
// memory guard compares with GOMEMLIMIT (aimd.Config.HeapBytes): the
// memory mapped and not returned to the OS, less the free heap and the
// garbage (the heap objects past the live heap the last collection
// marked). aimd's default reading counts those two: with GOGC=off and a
// GOMEMLIMIT the runtime keeps the heap it freed mapped, up to 95% of the
// limit, so once live data had tripped the guard (90%) and was collected,
// the reading stayed above the 80% that resets it and every command was
// refused for good (TestMemoryGuardRecoversAfterCollection); and garbage
// alone, which the collector frees as the heap nears the limit, tripped
// it. Objects allocated since the last collection count once one has
// marked them: the limit makes it run as the memory nears it.
func memoryInUse() uint64 {
	s := []rtmetrics.Sample{
		{Name: "/memory/classes/total:bytes"},
		{Name: "/memory/classes/heap/released:bytes"},
		{Name: "/memory/classes/heap/free:bytes"},
		{Name: "/memory/classes/heap/objects:bytes"},
		{Name: "/gc/heap/live:bytes"},
	}
	rtmetrics.Read(s)
	for _, m := range s {
		if m.Value.Kind() != rtmetrics.KindUint64 {
			return 0
		}
	}
	total, released, free := s[0].Value.Uint64(), s[1].Value.Uint64(), s[2].Value.Uint64()
	objects, live := s[3].Value.Uint64(), s[4].Value.Uint64()
	garbage := objects - min(live, objects)
	return total - min(total, released+free+garbage)
}
