package aimd_test

import (
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/aimd"
)

// mappedBytes is the Go memory mapped and not returned to the OS: what the
// default memory reading counted before it left out the free heap and the
// garbage.
func mappedBytes() uint64 {
	s := []metrics.Sample{{Name: "/memory/classes/total:bytes"}, {Name: "/memory/classes/heap/released:bytes"}}
	metrics.Read(s)
	return s[0].Value.Uint64() - s[1].Value.Uint64()
}

// gcOffWithLimit sets GOGC=off and a Go memory limit of 4 times the memory
// mapped (128 MiB at least) until t ends, and returns the limit.
func gcOffWithLimit(t *testing.T) int64 {
	runtime.GC()
	limit := max(int64(4*mappedBytes()), 128<<20)
	oldPercent := debug.SetGCPercent(-1)
	oldLimit := debug.SetMemoryLimit(limit)
	t.Cleanup(func() {
		debug.SetMemoryLimit(oldLimit)
		debug.SetGCPercent(oldPercent)
	})
	return limit
}

// garbageSink keeps the compiler from placing the test's garbage on the stack.
var garbageSink []byte

// TestDefaultHeapBytesRecoversAfterCollection: with GOGC=off and a Go memory
// limit (the setting Go's GC guide gives a process with a memory budget) the
// runtime keeps the heap it freed mapped, up to 95% of the limit. The default
// reading counted that mapped memory, so once live data had tripped the guard
// and was collected the reading stayed above MemoryLow and the Limiter refused
// everything for good; garbage alone tripped it too. It reads the memory the
// collector cannot reclaim now.
func TestDefaultHeapBytesRecoversAfterCollection(t *testing.T) {
	sig := aimd.SignalFunc(func(time.Time) (float64, error) { return 0.5, nil })
	l := newLimiter(t, aimd.Config{Signal: sig, Manual: true})
	now := time.Unix(1000, 0)
	step := func() {
		now = now.Add(100 * time.Millisecond)
		require.NoError(t, l.Tick(now))
	}
	limit := gcOffWithLimit(t)

	// Garbage up to 93% of the limit trips nothing.
	for float64(mappedBytes()) < 0.93*float64(limit) {
		garbageSink = make([]byte, 256<<10)
	}
	garbageSink = nil
	step()
	require.False(t, l.Stats().MemoryHigh, "garbage at 93 percent of the limit")

	// Live data of 93% of the limit, marked by a collection, trips it (the
	// freed heap the garbage left mapped is reused for it).
	var live [][]byte
	for n := int64(0); n < limit/100*93; n += 256 << 10 {
		live = append(live, make([]byte, 256<<10))
	}
	runtime.GC()
	step()
	require.True(t, l.Stats().MemoryHigh, "live data at 93 percent of the limit")
	runtime.KeepAlive(live)

	// Dropped and collected, the data leaves free heap mapped: the guard
	// resets all the same.
	live = nil
	runtime.GC()
	require.Greater(t, float64(mappedBytes())/float64(limit), 0.8, "the runtime keeps the freed heap mapped")
	step()
	require.False(t, l.Stats().MemoryHigh, "the guard resets once the data is collected")
}
