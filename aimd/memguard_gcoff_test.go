package aimd_test

import (
	"runtime"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/aimd"
	"github.com/tierkit/tierkit/internal/gcoff"
)

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
	limit := gcoff.WithLimit(t)

	// Garbage up to 93% of the limit trips nothing.
	for float64(gcoff.MappedBytes()) < 0.93*float64(limit) {
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
	require.Greater(t, float64(gcoff.MappedBytes())/float64(limit), 0.8, "the runtime keeps the freed heap mapped")
	step()
	require.False(t, l.Stats().MemoryHigh, "the guard resets once the data is collected")
}
