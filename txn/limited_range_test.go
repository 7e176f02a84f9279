package txn_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/memkv"
	"github.com/tierkit/tierkit/txn"
)

// "A range read cut short by its limit records only the part up to the last
// key returned, so writes beyond it do not cause false conflicts" (package
// doc). TestRandomRangeReadConflicts only bounds false conflicts loosely, so
// recording the whole range left the package green. Here a serializable
// transaction reads the first (or, reversed, the last) of three keys, another
// commit writes past what it returned, and the commit must succeed; a write
// inside what it read must still conflict.
func TestLimitedRangeReadRecordsOnlyWhatItReturned(t *testing.T) {
	for _, tc := range []struct {
		name           string
		reverse        bool
		got            string
		beyond, inside string
	}{
		{"forward", false, "a", "b", "a"},
		{"reverse", true, "c", "b", "c"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, other := range []string{tc.beyond, tc.inside} {
				s := newStore(t, memkv.Config{})
				_, err := s.Commit(ctx, &memkv.CommitRequest{Sets: [][]byte{b("a"), b("1"), b("b"), b("2"), b("c"), b("3")}})
				require.NoError(t, err)
				tx := begin(t, s, txn.Serializable)
				kvs, err := tx.GetRange(ctx, b("a"), b("d"), 1, tc.reverse)
				require.NoError(t, err)
				require.Len(t, kvs, 1)
				require.Equal(t, tc.got, string(kvs[0].Key))
				require.NoError(t, tx.Put(b("x"), b("mine")))
				_, err = s.Put(ctx, b(other), b("theirs"))
				require.NoError(t, err)
				_, err = tx.Commit(ctx)
				if other == tc.inside {
					var ce *txn.ConflictError
					require.ErrorAs(t, err, &ce, "a write to %s, which the read returned", other)
					continue
				}
				require.NoError(t, err, "a write to %s, past the last key returned", other)
			}
		})
	}
}
