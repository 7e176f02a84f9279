package main

import (
	"context"
	"runtime"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestMemkvOverwrittenKeyHoldsBoundedHistory overwrites one key with a
// 64 KiB value, four times the bytes of memkvHistoryBytes in all: the
// shard's history window held every version of it (65,536 of them: 144 MiB
// for 8,192 SETs of 16 KiB, up to 64 GiB for values of 1 MiB, where Redis
// holds one value), so memory grew with the writes, not with the data.
func TestMemkvOverwrittenKeyHoldsBoundedHistory(t *testing.T) {
	const size = 64 << 10
	b, err := newMemkvBackend(1)
	require.NoError(t, err)
	ctx := context.Background()
	val := make([]byte, size)
	out := make([]opResult, 1)
	before := liveHeap()
	for range 4 * memkvHistoryBytes / size {
		require.NoError(t, b.Do(ctx, 0, []op{{kind: opSet, key: "k", value: val}}, out))
		require.NoError(t, out[0].err)
	}
	held := liveHeap() - before
	require.Less(t, held, int64(2*memkvHistoryBytes), "%d MiB held for one key of %d KiB", held>>20, size>>10)
	require.NoError(t, b.Do(ctx, 0, []op{{kind: opGet, key: "k"}}, out))
	require.True(t, out[0].found)
	require.Len(t, out[0].value, size)
	runtime.KeepAlive(b)
}

// liveHeap returns the bytes of live heap objects after a full collection.
func liveHeap() int64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return int64(m.HeapAlloc)
}
