package memkv_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/memkv"
)

// TestStatsCountsScansGCRunsTooOld pins three Stats counters by their docs:
// Scans counts range reads that reached the data (not point reads, not one
// refused below the horizon); GCRuns counts Store.GC calls, not commits'
// incremental sweeps; TooOld counts reads and commits refused with ErrTooOld.
func TestStatsCountsScansGCRunsTooOld(t *testing.T) {
	s := newStore(t, memkv.Config{HistoryVersions: 1})
	for _, v := range []string{"1", "2", "3", "4"} {
		put(t, s, "k", v) // each commit sweeps: GCRuns stays 0
	}
	now := s.ReadVersion()
	_, err := s.Scan(ctx, now, nil, nil, 0, false, nil)
	require.NoError(t, err)
	_, err = s.Scan(ctx, now, b("a"), b("z"), 1, true, nil)
	require.NoError(t, err)
	_, _, err = s.Get(ctx, now, b("k"))
	require.NoError(t, err)
	st := s.Stats()
	require.EqualValues(t, 2, st.Scans)
	require.Zero(t, st.GCRuns, "commits' sweeps counted as GC runs")
	require.Zero(t, st.TooOld)

	old := uint64(1)
	require.Less(t, old, s.Horizon())
	_, _, err = s.Get(ctx, old, b("k"))
	require.ErrorIs(t, err, memkv.ErrTooOld)
	_, err = s.Scan(ctx, old, nil, nil, 0, false, nil)
	require.ErrorIs(t, err, memkv.ErrTooOld)
	_, err = s.Commit(ctx, &memkv.CommitRequest{ReadVersion: old, ReadKeys: [][]byte{b("k")},
		Sets: [][]byte{b("k"), b("5")}})
	require.ErrorIs(t, err, memkv.ErrTooOld)
	s.GC()
	s.GC()
	st = s.Stats()
	require.EqualValues(t, 3, st.TooOld)
	require.EqualValues(t, 2, st.Scans, "a scan refused below the horizon counted")
	require.EqualValues(t, 2, st.GCRuns)
}
