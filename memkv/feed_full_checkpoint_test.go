package memkv_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/memkv"
)

// TestCheckpointIntoFullBufferDoesNotCutOff: a subscriber holding exactly
// FeedBuffer writes is not behind yet; a checkpoint (from a ticker, say)
// cut it off with ErrOverflow, although the Subscription doc says that one
// that reads nothing is cut off only by writes. The checkpoint now takes one
// slot past the bound; the next checkpoint replaces it, the next write cuts
// the subscriber off.
func TestCheckpointIntoFullBufferDoesNotCutOff(t *testing.T) {
	const limit = 4
	s := newStore(t, memkv.Config{FeedBuffer: limit, CheckpointEvery: 1 << 20})
	sub := s.Subscribe()
	defer sub.Close()
	for i := range limit {
		put(t, s, fmt.Sprint("k", i), "v")
	}
	s.Checkpoint()
	last := s.Checkpoint()
	evs := drain(t, sub)
	require.Len(t, evs, limit+1, "every write, then the newest checkpoint")
	assert.Equal(t, memkv.EventCheckpoint, evs[limit].Kind)
	assert.Equal(t, last, evs[limit].Version)
	assert.Equal(t, uint64(0), s.Stats().FeedOverflows)

	t.Run("a write still cuts off", func(t *testing.T) {
		for i := range limit {
			put(t, s, fmt.Sprint("k", i), "w")
		}
		s.Checkpoint()
		put(t, s, "x", "w")
		for range limit + 1 {
			_, ok, err := sub.TryNext()
			require.NoError(t, err)
			require.True(t, ok)
		}
		_, _, err := sub.TryNext()
		assert.ErrorIs(t, err, memkv.ErrOverflow)
		assert.Equal(t, uint64(1), s.Stats().FeedOverflows)
	})
}
