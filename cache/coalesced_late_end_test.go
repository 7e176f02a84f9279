package cache_test

import (
	"context"
	"sync/atomic"
	"testing"
	"testing/synctest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/cache"
)

// endsOnErr is a context that ends just as its Err is asked once armed: the
// context of a caller whose deadline or cancellation comes right after its
// Get got the result of the load it joined.
type endsOnErr struct {
	context.Context
	cancel context.CancelFunc
	armed  atomic.Bool
}

func (c *endsOnErr) Err() error {
	if c.armed.Load() {
		c.cancel()
	}
	return c.Context.Err()
}

// TestCoalescedJoinerStayedLoadErrorLikeCtx pins Coalesced for a Get that
// joined a load and stayed for its result, an error equal to the one its own
// context reports by the time Get looks (a loader's own call cancelled, as
// the caller's context ends). Get told a caller that left from one that
// stayed by comparing the error with ctx.Err(), so it counted this joiner in
// neither Loads nor Coalesced.
func TestCoalescedJoinerStayedLoadErrorLikeCtx(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := newCache[string, int](t, cache.Config[string]{Capacity: 10})
		release := make(chan struct{})
		load := func(context.Context) (int, error) {
			<-release
			return 0, context.Canceled // the backend call was cancelled
		}
		leaderErr := make(chan error, 1)
		go func() {
			_, err := c.Get(t.Context(), "k", load)
			leaderErr <- err
		}()
		synctest.Wait() // the leader's load runs
		inner, cancel := context.WithCancel(t.Context())
		defer cancel()
		ctx := &endsOnErr{Context: inner, cancel: cancel}
		joinerErr := make(chan error, 1)
		go func() {
			_, err := c.Get(ctx, "k", load)
			joinerErr <- err
		}()
		synctest.Wait() // the joiner waits for that load
		ctx.armed.Store(true)
		close(release)
		require.ErrorIs(t, <-leaderErr, context.Canceled)
		require.ErrorIs(t, <-joinerErr, context.Canceled)

		s := c.Stats()
		assert.Equal(t, uint64(1), s.Loads, "the leader's load")
		assert.Equal(t, uint64(1), s.LoadErrors)
		assert.Equal(t, uint64(1), s.Coalesced, "the joiner, which stayed for the load's result")
	})
}
