package aimd_test

import (
	"math"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/aimd"
)

// gcCycles is the number of collections the runtime completed.
func gcCycles() uint64 {
	s := []metrics.Sample{{Name: "/gc/cycles/total:gc-cycles"}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}

// inUseBytes is the Go memory mapped, less the heap released to the OS and
// the free heap.
func inUseBytes() uint64 {
	s := []metrics.Sample{{Name: "/memory/classes/total:bytes"},
		{Name: "/memory/classes/heap/released:bytes"}, {Name: "/memory/classes/heap/free:bytes"}}
	metrics.Read(s)
	return s[0].Value.Uint64() - s[1].Value.Uint64() - s[2].Value.Uint64()
}

// TestDefaultHeapBytesConfigLimitCountsNewHeap: with GOGC=100, no Go memory
// limit and the limit given in Config.MemoryLimit, the collector runs when the
// heap doubles since the last collection, not as the memory nears the guard's
// limit. A default reading that counts only what the last collection marked
// lags a whole cycle: live data the process allocated since then, at 93% of
// the limit, tripped nothing.
func TestDefaultHeapBytesConfigLimitCountsNewHeap(t *testing.T) {
	oldPercent := debug.SetGCPercent(100)
	oldLimit := debug.SetMemoryLimit(math.MaxInt64)
	t.Cleanup(func() {
		debug.SetMemoryLimit(oldLimit)
		debug.SetGCPercent(oldPercent)
	})
	const chunk = 256 << 10
	var live [][]byte
	for n := 0; n < 48<<20; n += chunk {
		live = append(live, make([]byte, chunk))
	}
	runtime.GC()
	marked := inUseBytes()
	// The next collection starts once the heap has grown by 70% of what
	// the last one marked at least; half of it more, and the limit such that
	// it puts the memory at 93% of the limit, before any collection runs.
	more := marked / 2
	limit := int64(float64(marked+more) / 0.93)
	sig := aimd.SignalFunc(func(time.Time) (float64, error) { return 0.5, nil })
	l := newLimiter(t, aimd.Config{Signal: sig, Manual: true, MemoryLimit: limit})
	require.False(t, l.Stats().MemoryHigh, "the memory the last collection marked")

	cycles := gcCycles()
	for n := uint64(0); n < more; n += chunk {
		live = append(live, make([]byte, chunk))
	}
	require.NoError(t, l.Tick(time.Unix(1000, 0)))
	require.Equal(t, cycles, gcCycles(), "no collection ran while the data was allocated")
	require.True(t, l.Stats().MemoryHigh, "live data at 93 percent of Config.MemoryLimit, heap %v of %v",
		l.Stats().HeapBytes, limit)
	runtime.KeepAlive(live)
}
