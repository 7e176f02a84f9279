package memkv_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/memkv"
)

// FeedBuffer is a tunable that SetConfig swaps, and the Subscription doc
// says events are buffered up to Config.FeedBuffer; but each subscription
// kept the FeedBuffer in force when it subscribed. Raising it to stop
// cut-offs left every live subscriber at the old bound (cut off after 2 of
// 5 writes here), and lowering it to bound memory left them unbounded by it.
func TestFeedBufferSetConfigReachesLiveSubscribers(t *testing.T) {
	t.Run("raised", func(t *testing.T) {
		s := newStore(t, memkv.Config{FeedBuffer: 2, CheckpointEvery: 1 << 20})
		sub := s.Subscribe()
		defer sub.Close()
		require.NoError(t, s.SetConfig(memkv.Config{FeedBuffer: 8, CheckpointEvery: 1 << 20}))
		for i := range 5 {
			put(t, s, fmt.Sprint("k", i), "v")
		}
		assert.Len(t, drain(t, sub), 5)
		assert.Equal(t, uint64(0), s.Stats().FeedOverflows)
	})
	t.Run("lowered", func(t *testing.T) {
		s := newStore(t, memkv.Config{FeedBuffer: 64, CheckpointEvery: 1 << 20})
		sub := s.Subscribe()
		defer sub.Close()
		put(t, s, "a", "v") // the ring grows to 16 slots
		require.NoError(t, s.SetConfig(memkv.Config{FeedBuffer: 2, CheckpointEvery: 1 << 20}))
		for i := range 4 {
			put(t, s, fmt.Sprint("k", i), "v")
		}
		for range 2 {
			_, ok, err := sub.TryNext()
			require.NoError(t, err)
			require.True(t, ok)
		}
		_, _, err := sub.TryNext()
		assert.ErrorIs(t, err, memkv.ErrOverflow)
		assert.Equal(t, uint64(1), s.Stats().FeedOverflows)
	})
}

// TestFeedBufferLoweredCutsOffAtNextWrite: lowered below what a subscriber
// holds, FeedBuffer cuts it off at its next write, not at its next event (as
// the doc said): a checkpoint replaces the one buffered last, or takes one
// slot past the bound, and never cuts a subscriber off.
func TestFeedBufferLoweredCutsOffAtNextWrite(t *testing.T) {
	for _, lastCkpt := range []bool{true, false} {
		t.Run(fmt.Sprint("last event a checkpoint: ", lastCkpt), func(t *testing.T) {
			s := newStore(t, memkv.Config{FeedBuffer: 64, CheckpointEvery: 1 << 20})
			sub := s.Subscribe()
			defer sub.Close()
			for i := range 4 {
				put(t, s, fmt.Sprint("k", i), "v")
			}
			want := 4
			if lastCkpt {
				s.Checkpoint()
				want++
			}
			require.NoError(t, s.SetConfig(memkv.Config{FeedBuffer: 2, CheckpointEvery: 1 << 20}))
			s.Checkpoint()
			if !lastCkpt {
				want++
			}
			assert.Equal(t, uint64(0), s.Stats().FeedOverflows, "cut off by a checkpoint")
			put(t, s, "x", "v")
			assert.Equal(t, uint64(1), s.Stats().FeedOverflows, "not cut off by a write")
			for range want {
				_, ok, err := sub.TryNext()
				require.NoError(t, err)
				require.True(t, ok)
			}
			_, _, err := sub.TryNext()
			assert.ErrorIs(t, err, memkv.ErrOverflow)
		})
	}
}
