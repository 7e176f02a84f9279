package batcher_test

import (
	"context"
	"errors"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/batcher"
	"github.com/tierkit/tierkit/internal/leak"
)

// TestSlowBackendRejectsWithinOneLinger is the article's acute-overload scenario:
// open-loop traffic (one item every 50 µs over 4 groups, so batches fill to
// MaxItems before the linger ends) while the backend's latency steps from 1 ms to
// 200 ms. Flushed batches pile up; the in-flight cap
// must turn new items away with ErrOverloaded within one linger of the step, and
// the items inside the backend must stay bounded by MaxInFlight x MaxItems.
func TestSlowBackendRejectsWithinOneLinger(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const (
			groups   = 4
			gap      = 50 * time.Microsecond
			linger   = 4 * time.Millisecond
			maxItems = 8
			maxIF    = 6
			phase    = 50 * time.Millisecond // before and after the step
		)
		r := newRecorder()
		r.delay.Store(int64(time.Millisecond))
		b := newBatcher(t, batcher.Config[item]{
			MaxItems: maxItems, Linger: linger, MaxInFlight: maxIF, FlushTimeout: time.Second,
		}, r)

		type call struct {
			start, end time.Time
			err        error
		}
		n := int(2 * phase / gap)
		calls := make([]call, n)
		var wg sync.WaitGroup
		var step time.Time
		var maxBatches int
		for i := range n {
			if i == n/2 {
				step = time.Now()
				r.delay.Store(int64(200 * time.Millisecond))
			}
			maxBatches = max(maxBatches, b.Stats().InFlightBatches)
			wg.Go(func() {
				start := time.Now()
				_, err := b.Do(t.Context(), i%groups, item{ID: i, Group: i % groups})
				calls[i] = call{start, time.Now(), err}
			})
			time.Sleep(gap)
		}
		wg.Wait()
		require.NoError(t, b.Close())

		var firstReject time.Time
		var rejected, atOnce, okBefore int
		for _, c := range calls {
			switch {
			case errors.Is(c.err, batcher.ErrOverloaded):
				require.False(t, c.start.Before(step), "no rejection while the backend is fast: %v before the step", step.Sub(c.start))
				if firstReject.IsZero() || c.start.Before(firstReject) {
					firstReject = c.start
				}
				rejected++
				if c.end.Equal(c.start) {
					atOnce++
				}
			case c.err == nil && c.start.Before(step):
				okBefore++
			default:
				require.NoError(t, c.err)
			}
		}
		require.Equal(t, n/2, okBefore, "every item before the step is served")
		require.NotZero(t, rejected, "the cap rejects once batches pile up")
		assert.LessOrEqual(t, firstReject.Sub(step), linger, "rejections start within one linger of the step")
		assert.LessOrEqual(t, r.maxInFlight.Load(), int64(maxIF*maxItems), "items in the backend stay bounded")
		assert.LessOrEqual(t, maxBatches, maxIF, "batches in flight stay under the cap")
		assert.Positive(t, atOnce, "admission rejections return at once")
		t.Logf("step at +%v: first rejection %v after it, %d/%d items after the step rejected (%d at once), max %d items and %d batches in flight",
			phase, firstReject.Sub(step), rejected, n/2, atOnce, r.maxInFlight.Load(), maxBatches)
	})
}

// TestIdleEvictionReturnsMemory: a burst over 12,000 groups leaves 12,000 entries;
// once they have been idle for IdleTTL the next batch evicts them lazily, and the
// heap goes back near its level before the burst.
func TestIdleEvictionReturnsMemory(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const burst = 12_000
		r := newRecorder()
		b := newBatcher(t, batcher.Config[item]{MaxItems: 1, IdleTTL: time.Second}, r)
		defer b.Close()
		ctx := context.Background()
		_, err := b.Do(ctx, -1, item{ID: -1, Group: -1})
		require.NoError(t, err)
		r.mu.Lock()
		r.seen, r.batchOf, r.batches = map[int]int{}, map[int]error{}, nil // keep the recorder small
		r.mu.Unlock()
		base := heapInUse()

		for g := range burst {
			_, err := b.Do(ctx, g, item{ID: g, Group: g})
			require.NoError(t, err)
		}
		r.mu.Lock()
		r.seen, r.batchOf, r.batches = map[int]int{}, map[int]error{}, nil
		r.mu.Unlock()
		assert.Equal(t, burst+1, b.Stats().LiveGroups)
		peak := heapInUse()

		time.Sleep(500 * time.Millisecond) // not idle long enough yet
		_, err = b.Do(ctx, -2, item{ID: -2, Group: -2})
		require.NoError(t, err)
		assert.Equal(t, burst+2, b.Stats().LiveGroups, "nothing evicted before IdleTTL")

		time.Sleep(700 * time.Millisecond) // now every burst group has been idle past IdleTTL
		_, err = b.Do(ctx, -3, item{ID: -3, Group: -3})
		require.NoError(t, err)
		s := b.Stats()
		assert.Equal(t, 2, s.LiveGroups, "only the groups used within IdleTTL remain") // -2, -3
		assert.Equal(t, uint64(burst+1), s.EvictedGroups)
		after := heapInUse()
		t.Logf("heap: %d KiB before the burst, %d KiB with %d groups, %d KiB after eviction",
			base>>10, peak>>10, burst, after>>10)
		require.Greater(t, peak, base+burst*16, "the burst grew the heap")
		assert.Less(t, after, base+(peak-base)/4, "eviction gave back at least 3/4 of it")
	})
}

// TestEvictIdle: EvictIdle frees a quiet batcher without waiting for traffic.
func TestEvictIdle(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := newBatcher(t, batcher.Config[item]{MaxItems: 1, IdleTTL: time.Minute}, newRecorder())
		defer b.Close()
		for g := range 100 {
			_, err := b.Do(context.Background(), g, item{ID: g, Group: g})
			require.NoError(t, err)
		}
		assert.Zero(t, b.EvictIdle(), "not idle long enough")
		time.Sleep(time.Minute)
		assert.Equal(t, 100, b.EvictIdle())
		assert.Zero(t, b.Stats().LiveGroups)
	})
}

func heapInUse() uint64 {
	var m runtime.MemStats
	for range 2 {
		runtime.GC()
	}
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// TestCloseLeavesNoGoroutine: with batches open in many groups (linger timers
// armed) and flushes running, Close drains everything and no goroutine of the
// batcher survives it (real time, checked with internal/leak).
func TestCloseLeavesNoGoroutine(t *testing.T) {
	leak.Check(t)
	const groups = 50
	r := newRecorder()
	gate := make(chan struct{})
	var started atomic.Int64
	flush := func(ctx context.Context, g int, reqs []item, out []batcher.Result[int]) error {
		started.Add(int64(len(reqs)))
		<-gate // the backend is busy until the test opens the gate
		return r.flush(ctx, g, reqs, out)
	}
	b, err := batcher.New(batcher.Config[item]{MaxItems: 3, Linger: time.Hour}, flush)
	require.NoError(t, err)
	var wg sync.WaitGroup
	outs := make([]outcome, 4*groups) // per group: one full batch in flight, one item pending
	for i := range outs {
		wg.Go(func() {
			v, err := b.Do(context.Background(), i%groups, item{ID: i, Group: i % groups})
			outs[i] = outcome{ID: i, Resp: v, Err: err}
		})
	}
	// until every caller is in a batch
	for deadline := time.Now().Add(10 * time.Second); started.Load() < 3*groups || b.Stats().PendingItems < groups; runtime.Gosched() {
		if time.Now().After(deadline) {
			n, p := started.Load(), b.Stats().PendingItems
			close(gate) // let the callers and flushes end before the test does
			require.NoError(t, b.Close())
			wg.Wait()
			require.FailNow(t, "the callers never all reached a batch",
				"%d of %d in flushes, %d of %d pending after 10 s", n, 3*groups, p, groups)
		}
	}
	closed := make(chan struct{})
	go func() {
		assert.NoError(t, b.Close())
		close(closed)
	}()
	close(gate)
	<-closed
	wg.Wait()
	require.Empty(t, checkOutcomes(r, outs))
	for _, o := range outs {
		require.NoError(t, o.Err, "Close flushes what is pending")
	}
	s := b.Stats()
	assert.Equal(t, uint64(len(outs)), s.Items)
	assert.Equal(t, uint64(2*groups), s.Batches)
}
