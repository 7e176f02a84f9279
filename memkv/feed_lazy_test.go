package memkv_test

import (
	"fmt"
	"math"
	"runtime"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/memkv"
)

// TestSubscribeCostsWhatItBuffers: a subscription's buffer grows with the
// events it holds, up to FeedBuffer. Subscribe allocated the whole ring at
// once: 4096 events (384 KiB) for each idle subscriber at the default, 96 MiB
// at FeedBuffer 1<<20, and a panic (makeslice: len out of range) for a
// FeedBuffer too large to allocate, which Config accepts.
func TestSubscribeCostsWhatItBuffers(t *testing.T) {
	t.Run("idle subscriber", func(t *testing.T) {
		s := newStore(t, memkv.Config{FeedBuffer: 1 << 20})
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		sub := s.Subscribe()
		runtime.ReadMemStats(&after)
		defer sub.Close()
		require.Less(t, after.TotalAlloc-before.TotalAlloc, uint64(64<<10), "bytes allocated by one Subscribe")
	})
	t.Run("huge FeedBuffer", func(t *testing.T) {
		s := newStore(t, memkv.Config{FeedBuffer: math.MaxInt, CheckpointEvery: 1000})
		sub := s.Subscribe()
		defer sub.Close()
		for i := range 100 {
			put(t, s, fmt.Sprint("k", i), "v")
		}
		for i := range 100 {
			e, ok, err := sub.TryNext()
			require.NoError(t, err)
			require.True(t, ok)
			require.Equal(t, fmt.Sprint("k", i), string(e.Key))
		}
	})
	t.Run("growth keeps order and the bound", func(t *testing.T) {
		s := newStore(t, memkv.Config{FeedBuffer: 100, CheckpointEvery: 1000})
		sub := s.Subscribe()
		defer sub.Close()
		next := 0
		for i := range 100 {
			put(t, s, fmt.Sprint("k", i), "v")
			if i%3 == 0 { // take some, so that the ring wraps before it grows
				e, ok, err := sub.TryNext()
				require.NoError(t, err)
				require.True(t, ok)
				require.Equal(t, fmt.Sprint("k", next), string(e.Key))
				next++
			}
		}
		for i := 100; i < 100+next; i++ { // exactly full again
			put(t, s, fmt.Sprint("k", i), "v")
		}
		put(t, s, "over", "v")
		for ; next < 100+34; next++ {
			e, ok, err := sub.TryNext()
			require.NoError(t, err)
			require.True(t, ok)
			require.Equal(t, fmt.Sprint("k", next), string(e.Key))
		}
		_, _, err := sub.TryNext()
		require.ErrorIs(t, err, memkv.ErrOverflow)
	})
}
