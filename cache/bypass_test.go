package cache_test

import (
	"context"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/cache"
)

// TestStaleBypassReload: Gets that joined a load slower than MaxStaleness
// load again, since its value may be staler than the bound. That reload ran
// on each caller's goroutine, outside the group: a caller whose ctx ended
// still waited for a load that did not watch ctx (Get promises to return
// ctx.Err() at once; found by a review), and every bypassing caller made a
// backend call of its own. It now goes through the group: the callers share
// one reload, and each can leave it.
func TestStaleBypassReload(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c, err := cache.New[string, int](cache.Config[string]{MaxStaleness: time.Second})
		require.NoError(t, err)
		slow, reload := make(chan struct{}), make(chan struct{})
		var reloads atomic.Int32
		go c.Get(context.Background(), "k", func(context.Context) (int, error) {
			<-slow
			return 1, nil
		})
		synctest.Wait()
		time.Sleep(2 * time.Second) // the load in flight is now older than the bound

		leaver, leave := context.WithCancel(context.Background())
		type result struct {
			v   int
			err error
		}
		results := make([]chan result, 3)
		for i := range results {
			ctx := context.Background()
			if i == 0 {
				ctx = leaver
			}
			results[i] = make(chan result, 1)
			go func() {
				v, err := c.Get(ctx, "k", func(context.Context) (int, error) {
					reloads.Add(1)
					<-reload // a backend call that does not watch ctx
					return 2, nil
				})
				results[i] <- result{v, err}
			}()
		}
		synctest.Wait() // the three joined the slow load
		close(slow)
		synctest.Wait() // the slow load returned; the three bypass it, into one reload
		require.Equal(t, int32(1), reloads.Load(), "one reload shared by the bypassing callers")
		leave()
		synctest.Wait()
		select {
		case r := <-results[0]:
			require.ErrorIs(t, r.err, context.Canceled)
		default:
			t.Fatal("a Get whose ctx ended still waits for its stale-bypass reload")
		}
		close(reload)
		for _, ch := range results[1:] {
			r := <-ch
			require.NoError(t, r.err)
			require.Equal(t, 2, r.v)
		}
		st := c.Stats()
		require.Equal(t, uint64(3), st.StaleBypass)
		require.Equal(t, uint64(2), st.Loads, "the slow load and the one reload")
		// The reload's joiners that stayed count as Coalesced: both others if
		// the caller that left led the reload (its load counts), one if it
		// joined (a caller that leaves a flight it joined counts in neither).
		require.Contains(t, []uint64{1, 2}, st.Coalesced)
		v, ok := c.TryGet("k")
		require.True(t, ok)
		require.Equal(t, 2, v)
	})
}
