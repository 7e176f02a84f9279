package cache_test

import (
	"context"
	"testing"
	"testing/synctest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/cache"
)

// TestLoadsCoalescedLeaderLeft pins how Loads and Coalesced count a load
// whose leading Get left while a joiner stayed: the load goes on for the
// joiner and counts in Loads, the joiner counts in Coalesced, so Loads +
// Coalesced is 2 for the one Get that stayed. Stats.Coalesced said every
// Get that missed and stayed counts once in Loads or Coalesced, which read
// as that sum being the staying Gets.
func TestLoadsCoalescedLeaderLeft(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := newCache[string, int](t, cache.Config[string]{Capacity: 10})
		release := make(chan struct{})
		load := func(context.Context) (int, error) {
			<-release
			return 7, nil
		}
		leaderCtx, leave := context.WithCancel(t.Context())
		leaderErr := make(chan error, 1)
		go func() {
			_, err := c.Get(leaderCtx, "k", load)
			leaderErr <- err
		}()
		synctest.Wait() // the leader's load runs
		joined := make(chan int, 1)
		go func() {
			v, err := c.Get(t.Context(), "k", load)
			assert.NoError(t, err)
			joined <- v
		}()
		synctest.Wait() // the joiner waits for that load
		leave()
		require.ErrorIs(t, <-leaderErr, context.Canceled)
		close(release)
		assert.Equal(t, 7, <-joined)

		s := c.Stats()
		assert.Equal(t, uint64(1), s.Loads, "the load the leader started")
		assert.Equal(t, uint64(1), s.Coalesced, "the joiner, which stayed")
	})
}
