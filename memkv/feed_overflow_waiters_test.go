package memkv_test

import (
	"context"
	"testing"
	"testing/synctest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/memkv"
)

// TestOverflowReachesEveryPendingNext: the cut-off is the subscription's last
// state, and every Next waiting on it must learn it, however many there are.
// Three Next calls found the buffer empty; a commit buffers one event and
// overflows on the next. The first Next took the event and passed the wake-up
// token on, the second took the token and returned ErrOverflow without
// passing it on, and the third waited for a wake-up that never came (until
// its context ended).
func TestOverflowReachesEveryPendingNext(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s, err := memkv.New(memkv.Config{FeedBuffer: 1})
		require.NoError(t, err)
		sub := s.Subscribe()
		defer sub.Close()
		gate := &gateCtx{Context: context.Background(), entered: make(chan struct{}, 8),
			release: make(chan struct{}), done: make(chan struct{})}
		const waiters = 3
		got := make(chan string, waiters)
		for range waiters {
			go func() {
				e, err := sub.Next(gate)
				if err != nil {
					got <- err.Error()
				} else {
					got <- string(e.Key)
				}
			}()
		}
		for range waiters {
			<-gate.entered // each found nothing buffered and is about to wait
		}
		_, err = s.Commit(context.Background(), &memkv.CommitRequest{Sets: [][]byte{b("a"), b("1"), b("b"), b("2")}})
		require.NoError(t, err)
		close(gate.release)
		synctest.Wait() // every Next has returned, or one waits for a wake-up
		require.Len(t, got, waiters, "a cut-off subscription must not leave a Next waiting")
		res := []string{<-got, <-got, <-got}
		assert.ElementsMatch(t, []string{"a", memkv.ErrOverflow.Error(), memkv.ErrOverflow.Error()}, res)
	})
}
