package memkv_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/memkv"
)

// TestStatsFeedEventsCountsWrites pins Stats.FeedEvents, "write events
// published": with a subscriber, it is the number of write events the
// subscriber receives (checkpoints not counted), one per key a commit writes.
func TestStatsFeedEventsCountsWrites(t *testing.T) {
	s := newStore(t, memkv.Config{CheckpointEvery: 2})
	sub := s.Subscribe()
	defer sub.Close()
	put(t, s, "a", "1")
	_, err := s.Delete(ctx, b("a"))
	require.NoError(t, err)
	_, err = s.Commit(ctx, &memkv.CommitRequest{
		ReadVersion: s.ReadVersion(),
		Sets:        [][]byte{b("b"), b("2"), b("c"), b("3")},
	})
	require.NoError(t, err)
	s.Checkpoint()

	writes := 0
	for {
		e, ok, err := sub.TryNext()
		require.NoError(t, err)
		if !ok {
			break
		}
		if e.Kind == memkv.EventWrite {
			writes++
		}
	}
	require.Equal(t, 4, writes)
	require.EqualValues(t, writes, s.Stats().FeedEvents)
}
