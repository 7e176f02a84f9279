package memkv_test

import (
	"fmt"
	"runtime"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/memkv"
)

// heapAlloc returns the bytes of live heap objects after a full collection.
func heapAlloc() int64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return int64(m.HeapAlloc)
}

// TestGCAfterBurstReleasesIndex writes a burst of keys, clears them and runs
// GC, which collects every one of them: the memory held must go back to
// about what the empty store held, including the point-read index.
func TestGCAfterBurstReleasesIndex(t *testing.T) {
	const commits, each = 50, 1000
	s := newStore(t, memkv.Config{HistoryVersions: 1, GCStep: -1})
	before := heapAlloc()
	for i := range commits {
		req := &memkv.CommitRequest{}
		for j := range each {
			req.Sets = append(req.Sets, b(fmt.Sprintf("k%08d", i*each+j)), b(""))
		}
		_, err := s.Commit(ctx, req)
		require.NoError(t, err)
	}
	peak := heapAlloc() - before
	_, err := s.Commit(ctx, &memkv.CommitRequest{Clears: [][]byte{b("k"), b("l")}})
	require.NoError(t, err)
	put(t, s, "z", "") // moves the horizon past the clear
	s.GC()
	require.Zero(t, s.Stats().Keys-1)
	held := heapAlloc() - before
	assert.Less(t, held, peak/20, "%d KiB held after GC, %d KiB at the peak", held>>10, peak>>10)
	runtime.KeepAlive(s)
}
