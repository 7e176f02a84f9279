package memkv_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/memkv"
)

func TestFeedOrderAndCheckpoints(t *testing.T) {
	s := newStore(t, memkv.Config{CheckpointEvery: 2})
	put(t, s, "before", "x")
	sub := s.Subscribe()
	defer sub.Close()
	assert.Equal(t, uint64(1), sub.Start)
	put(t, s, "a", "1")
	_, err := s.Commit(ctx, &memkv.CommitRequest{ReadVersion: s.ReadVersion(), Sets: [][]byte{b("b"), b("2"), b("c"), nil}})
	require.NoError(t, err)
	_, err = s.Commit(ctx, &memkv.CommitRequest{ReadVersion: s.ReadVersion(), Clears: [][]byte{b("a"), b("b\x00")}})
	require.NoError(t, err)
	want := []string{
		"w2 a=1", "w3 b=2", "c3", // deleting the absent c changes nothing
		"w4 a deleted", "w4 b deleted", "c4",
	}
	v := s.Checkpoint()
	require.Equal(t, uint64(4), v)
	var got []string
	for {
		e, ok, err := sub.TryNext()
		require.NoError(t, err)
		if !ok {
			break
		}
		got = append(got, show(e))
	}
	assert.Equal(t, want, got)
}

func show(e memkv.Event) string {
	if e.Kind == memkv.EventCheckpoint {
		return fmt.Sprintf("c%d", e.Version)
	}
	if e.Deleted {
		return fmt.Sprintf("w%d %s deleted", e.Version, e.Key)
	}
	return fmt.Sprintf("w%d %s=%s", e.Version, e.Key, e.Value)
}

func TestFeedOverflowCutsOff(t *testing.T) {
	s := newStore(t, memkv.Config{FeedBuffer: 3, CheckpointEvery: 100})
	sub := s.Subscribe()
	defer sub.Close()
	for i := range 5 {
		put(t, s, fmt.Sprint(i), "v")
	}
	for i := range 3 {
		e, err := sub.Next(ctx)
		require.NoError(t, err)
		assert.Equal(t, fmt.Sprint(i), string(e.Key), "events before the cut arrive in order")
	}
	_, err := sub.Next(ctx)
	assert.ErrorIs(t, err, memkv.ErrOverflow)
	assert.Equal(t, uint64(1), s.Stats().FeedOverflows)
	sub.Close()
	_, _, err = sub.TryNext()
	assert.ErrorIs(t, err, memkv.ErrClosed)
	assert.Equal(t, 0, s.Stats().Subscribers)
}

// TestFeedConcurrentConsumer checks ordered, gap-free delivery to a consumer
// running beside concurrent committers, and that Close releases a waiting Next.
func TestFeedConcurrentConsumer(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newStore(t, memkv.Config{FeedBuffer: 1 << 14})
		sub := s.Subscribe()
		const writers, each = 4, 200
		var wg sync.WaitGroup
		for w := range writers {
			wg.Go(func() {
				for i := range each {
					_, err := s.Put(ctx, []byte(fmt.Sprintf("w%d-%d", w, i)), b("v"))
					assert.NoError(t, err)
				}
			})
		}
		done := make(chan []uint64, 1)
		go func() {
			var vs []uint64
			for {
				e, err := sub.Next(context.Background())
				if err != nil {
					done <- vs
					return
				}
				if e.Kind == memkv.EventWrite {
					vs = append(vs, e.Version)
				}
			}
		}()
		wg.Wait()
		synctest.Wait()
		sub.Close()
		vs := <-done
		require.Len(t, vs, writers*each)
		for i, v := range vs {
			require.Equal(t, uint64(i+1), v, "ordered and gap-free")
		}
	})
}

func TestNextHonoursContextAndDelay(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newStore(t, memkv.Config{Faults: memkv.Faults{Delay: time.Second}})
		sub := s.Subscribe()
		defer sub.Close()
		c, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
		defer cancel()
		_, err := sub.Next(c)
		assert.ErrorIs(t, err, context.DeadlineExceeded)
		_, err = s.Put(c, b("k"), b("v"))
		assert.ErrorIs(t, err, context.DeadlineExceeded, "the delay honours the context")
		start := time.Now()
		_, err = s.Put(context.Background(), b("k"), b("v"))
		require.NoError(t, err)
		assert.Equal(t, time.Second, time.Since(start), "delayed by Faults.Delay (virtual time)")
	})
}

// TestCloseWakesEveryPendingNext: Close wakes every Next blocked on the
// subscription (it is safe for concurrent use), each with ErrClosed; a single
// wake-up token left the others blocked until their contexts ended.
func TestCloseWakesEveryPendingNext(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s, err := memkv.New(memkv.Config{})
		require.NoError(t, err)
		sub := s.Subscribe()
		errs := make(chan error, 3)
		for range 3 {
			go func() {
				_, err := sub.Next(context.Background())
				errs <- err
			}()
		}
		synctest.Wait() // all three blocked in Next
		sub.Close()
		for range 3 {
			assert.ErrorIs(t, <-errs, memkv.ErrClosed)
		}
	})
}

// TestEveryBufferedEventWakesAPendingNext: two Next calls that found the
// buffer empty, and a commit that buffers two events before either of them
// parks, must both return. The wake-up token holds one signal: the second
// push found it taken and dropped its own, the first Next took the token and
// one event, and the second parked beside the other buffered event until
// some later commit. The gate context holds both calls in that window: Next
// evaluates ctx.Done() after its empty TryNext, before it waits.
func TestEveryBufferedEventWakesAPendingNext(t *testing.T) {
	for _, tc := range []struct {
		buffer int
		want   []string
	}{
		{0, []string{"a", "b"}},
		{1, []string{"a", memkv.ErrOverflow.Error()}}, // the cut-off must reach the other Next too
	} {
		t.Run(fmt.Sprint("buffer=", tc.buffer), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				s, err := memkv.New(memkv.Config{FeedBuffer: tc.buffer})
				require.NoError(t, err)
				sub := s.Subscribe()
				defer sub.Close()
				gate := &gateCtx{Context: context.Background(), entered: make(chan struct{}, 8),
					release: make(chan struct{}), done: make(chan struct{})}
				got := make(chan string, 2)
				for range 2 {
					go func() {
						e, err := sub.Next(gate)
						if err != nil {
							got <- err.Error()
						} else {
							got <- string(e.Key)
						}
					}()
				}
				<-gate.entered
				<-gate.entered // both found nothing buffered and are about to wait
				_, err = s.Commit(context.Background(), &memkv.CommitRequest{Sets: [][]byte{b("a"), b("1"), b("b"), b("2")}})
				require.NoError(t, err)
				close(gate.release)
				synctest.Wait() // both Next calls have returned, or one waits beside a buffered event
				require.Len(t, got, 2, "two events pushed, two Next calls must return")
				assert.ElementsMatch(t, tc.want, []string{<-got, <-got})
			})
		})
	}
}

// gateCtx is a context whose Done method reports that it was called and
// then waits for the test to open the gate.
type gateCtx struct {
	context.Context
	entered, release, done chan struct{}
}

func (c *gateCtx) Done() <-chan struct{} {
	c.entered <- struct{}{}
	<-c.release
	return c.done
}
