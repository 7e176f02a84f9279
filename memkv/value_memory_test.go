package memkv_test

import (
	"bytes"
	"fmt"
	"runtime"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/memkv"
)

// heapInUse returns the bytes of live heap objects after a full collection.
// TestGCFreesOverwrittenValuesOfACommit commits a large value to one key and
// a small one to a new key, again and again: the large one is overwritten on
// every commit and GC drops its old versions, so the memory held must stay
// about one large value, not one per commit kept alive by the small values
// written beside it.
func TestGCFreesOverwrittenValuesOfACommit(t *testing.T) {
	const commits, size = 200, 64 << 10
	s := newStore(t, memkv.Config{HistoryVersions: 1})
	big := make([]byte, size)
	before := heapAlloc()
	for i := range commits {
		_, err := s.Commit(ctx, &memkv.CommitRequest{Sets: [][]byte{b("hot"), big, b(fmt.Sprint("cold", i)), b("x")}})
		require.NoError(t, err)
	}
	s.GC()
	held := heapAlloc() - before
	assert.EqualValues(t, commits+2, s.Stats().Versions)
	assert.Less(t, held, int64(commits*size/10), "%d KiB held for %d live bytes", held>>10, size+commits)
	runtime.KeepAlive(s)
}

// TestHistoryBytesBoundsOverwrittenValues overwrites one key with a large
// value again and again, within a window of many versions: without a bound
// on the window's bytes every version of it stays readable, so memory grows
// with the writes, not with the data.
func TestHistoryBytesBoundsOverwrittenValues(t *testing.T) {
	const commits, size = 400, 64 << 10
	s := newStore(t, memkv.Config{HistoryVersions: 1 << 16, HistoryBytes: 8 * size})
	big := make([]byte, size)
	before := heapAlloc()
	for range commits {
		_, err := s.Commit(ctx, &memkv.CommitRequest{Sets: [][]byte{b("hot"), big}})
		require.NoError(t, err)
	}
	held := heapAlloc() - before
	assert.LessOrEqual(t, s.Stats().Versions, int64(10))
	assert.Less(t, held, int64(commits*size/10), "%d KiB held for %d live bytes", held>>10, size)
	v := s.ReadVersion()
	_, _, err := s.Get(ctx, v-6, b("hot")) // within the bound
	require.NoError(t, err)
	_, _, err = s.Get(ctx, v-8, b("hot")) // behind it
	require.ErrorIs(t, err, memkv.ErrTooOld)
	runtime.KeepAlive(s)
}

// TestHotKeyVersionsTrimmedOnWrite: among many keys, a key overwritten on
// every commit keeps only the versions its window can read. The incremental
// sweep visits GCStep keys per commit in rotation, so with 10,000 keys it
// came back to the hot key every 1,250 commits, and the versions that had
// left the window meanwhile (up to 1,250 copies of its value) stayed in
// memory until then: HistoryBytes bounded what reads could see, not what the
// store held. A write now trims its own key's versions behind the horizon.
func TestHotKeyVersionsTrimmedOnWrite(t *testing.T) {
	const keys, commits, size = 10_000, 1_000, 1 << 10
	s := newStore(t, memkv.Config{HistoryVersions: 1 << 16, HistoryBytes: 8 * size})
	for i := range keys {
		_, err := s.Commit(ctx, &memkv.CommitRequest{Sets: [][]byte{b(fmt.Sprintf("k%05d", i)), b("v")}})
		require.NoError(t, err)
	}
	big := make([]byte, size)
	for range commits {
		_, err := s.Commit(ctx, &memkv.CommitRequest{Sets: [][]byte{b("hot"), big}})
		require.NoError(t, err)
	}
	// Each key's newest version, and the hot key's within the window (about
	// 8 of them) and the one the horizon reads.
	assert.LessOrEqual(t, s.Stats().Versions, int64(keys+1+10), "versions held")
}

// TestHistoryBytesCountsRanges: the window holds the bounds of each commit's
// clears and write ranges (to validate reads against them) as it holds the
// values of its sets, but HistoryBytes counted the sets only, so commits
// that clear or mark ranges with long keys held HistoryVersions of them.
func TestHistoryBytesCountsRanges(t *testing.T) {
	const size = 1 << 10
	s := newStore(t, memkv.Config{HistoryVersions: 1 << 16, HistoryBytes: 8 * size})
	lo, hi := bytes.Repeat(b("a"), size), bytes.Repeat(b("b"), size)
	for i := range 100 {
		req := &memkv.CommitRequest{Clears: [][]byte{lo, hi}}
		if i%2 == 1 {
			req = &memkv.CommitRequest{WriteRanges: [][]byte{lo, hi}}
		}
		_, err := s.Commit(ctx, req)
		require.NoError(t, err)
	}
	// Each commit holds 2 KiB of bounds: about 4 fit in 8 KiB.
	assert.GreaterOrEqual(t, s.Horizon(), s.ReadVersion()-5, "horizon %d at version %d", s.Horizon(), s.ReadVersion())
}
