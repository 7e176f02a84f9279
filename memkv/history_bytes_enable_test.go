package memkv_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/memkv"
)

// TestHistoryBytesSetAtRuntimeCountsTheWindow overwrites one key many times
// with no bytes bound, then sets one with SetConfig: the next commit must
// bring the window within it. Only the commits made under a bound used to be
// counted, so the commits already in the window were not, and the window
// (every version of the key) stayed until that many bytes were written again.
func TestHistoryBytesSetAtRuntimeCountsTheWindow(t *testing.T) {
	const commits, size, bound = 100, 1 << 10, 8 << 10
	s := newStore(t, memkv.Config{HistoryVersions: 1 << 16})
	val := make([]byte, size-len("hot")) // every commit writes size bytes
	for range commits {
		_, err := s.Put(ctx, b("hot"), val)
		require.NoError(t, err)
	}
	require.NoError(t, s.SetConfig(memkv.Config{HistoryVersions: 1 << 16, HistoryBytes: bound}))
	for i := range 3 {
		_, err := s.Put(ctx, b("hot"), val)
		require.NoError(t, err)
		h, v := s.Horizon(), s.ReadVersion()
		msg := fmt.Sprintf("commit %d under the bound: horizon %d, version %d", i, h, v)
		require.LessOrEqual(t, int64(v-h)*size, int64(bound), msg)
		// The window's versions, and one the commit's own sweep of the key
		// kept (it ran before the commit moved the horizon).
		require.LessOrEqual(t, s.Stats().Versions, int64(bound/size+2), msg)
	}
}
