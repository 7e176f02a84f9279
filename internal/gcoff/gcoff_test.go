package gcoff_test

import (
	"runtime/debug"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/tierkit/tierkit/internal/gcoff"
)

func TestWithLimitRestores(t *testing.T) {
	before := debug.SetMemoryLimit(-1)
	t.Run("inner", func(t *testing.T) {
		limit := gcoff.WithLimit(t)
		assert.GreaterOrEqual(t, limit, int64(128<<20))
		assert.GreaterOrEqual(t, limit, int64(4*gcoff.MappedBytes())/2, "the limit is set from the memory mapped")
		assert.Equal(t, limit, debug.SetMemoryLimit(-1))
		assert.Equal(t, -1, debug.SetGCPercent(-1), "GOGC is off")
	})
	assert.Equal(t, before, debug.SetMemoryLimit(-1), "the limit is restored when the test ends")
	assert.NotEqual(t, -1, debug.SetGCPercent(-1), "GOGC is restored")
}
