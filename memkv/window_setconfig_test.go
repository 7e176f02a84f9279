package memkv_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/memkv"
)

// TestSetConfigShrinksTheWindowAtOnce overwrites one key, then shrinks the
// history window with SetConfig on the now idle store. The horizon used to
// move only on the next commit: reads far older than the newest version minus
// HistoryVersions still succeeded, and GC freed nothing, so an operator
// shrinking the window of an idle store to free memory got none back.
func TestSetConfigShrinksTheWindowAtOnce(t *testing.T) {
	const commits = 100
	for _, tc := range []struct {
		name string
		cfg  memkv.Config
	}{
		{"versions", memkv.Config{HistoryVersions: 2}},
		{"bytes", memkv.Config{HistoryVersions: 1 << 16, HistoryBytes: 2 * int64(len("hot")+len("value"))}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newStore(t, memkv.Config{HistoryVersions: 1 << 16})
			for range commits {
				put(t, s, "hot", "value")
			}
			require.NoError(t, s.SetConfig(tc.cfg))
			assert.Equal(t, uint64(commits-2), s.Horizon())
			_, _, err := s.Get(ctx, 1, b("hot"))
			assert.ErrorIs(t, err, memkv.ErrTooOld)
			s.GC()
			assert.LessOrEqual(t, s.Stats().Versions, int64(3))
		})
	}
}
