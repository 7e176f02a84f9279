package gcoff_test

import (
	"runtime"
	"runtime/debug"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/tierkit/tierkit/internal/gcoff"
)

// gcPercent returns the GOGC setting without changing it: SetGCPercent(-1)
// alone, as this test used to read it, turns the collector off for the rest
// of the process, and a second run of the test (-count=2) then found GOGC
// off before WithLimit was called and failed.
func gcPercent() int {
	p := debug.SetGCPercent(-1)
	debug.SetGCPercent(p)
	return p
}

// TestWithLimitRestores: WithLimit's cleanup puts back the settings it found,
// here ones that are not the defaults, so that a restore to a constant shows.
func TestWithLimitRestores(t *testing.T) {
	oldPercent := debug.SetGCPercent(77)
	oldLimit := debug.SetMemoryLimit(3 << 30)
	t.Cleanup(func() {
		debug.SetGCPercent(oldPercent)
		debug.SetMemoryLimit(oldLimit)
	})
	t.Run("inner", func(t *testing.T) {
		limit := gcoff.WithLimit(t)
		assert.GreaterOrEqual(t, limit, int64(128<<20))
		assert.GreaterOrEqual(t, limit, int64(4*gcoff.MappedBytes())/2, "the limit is set from the memory mapped")
		assert.Equal(t, limit, debug.SetMemoryLimit(-1))
		assert.Equal(t, -1, gcPercent(), "GOGC is off")
	})
	assert.Equal(t, int64(3<<30), debug.SetMemoryLimit(-1), "the limit is restored when the test ends")
	assert.Equal(t, 77, gcPercent(), "GOGC is restored")
}

// TestHeldBytesCountsLiveData: HeldBytes counts the data kept alive across a
// collection, and never exceeds the memory mapped.
func TestHeldBytesCountsLiveData(t *testing.T) {
	data := make([]byte, 32<<20)
	runtime.GC()
	assert.GreaterOrEqual(t, gcoff.HeldBytes(), uint64(len(data)))
	assert.LessOrEqual(t, gcoff.HeldBytes(), gcoff.MappedBytes())
	runtime.KeepAlive(data)
}
