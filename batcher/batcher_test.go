package batcher_test

import (
	"context"
	"errors"
	"runtime"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/batcher"
)

func newBatcher(t *testing.T, cfg batcher.Config[item], r *recorder) *batcher.Batcher[int, item, int] {
	t.Helper()
	b, err := batcher.New(cfg, r.flush)
	require.NoError(t, err)
	return b
}

// doAll runs one Do per item concurrently, item i starting after starts[i], and
// returns the outcomes in item order.
func doAll(ctx context.Context, b *batcher.Batcher[int, item, int], items []item, starts []time.Duration) []outcome {
	outs := make([]outcome, len(items))
	var wg sync.WaitGroup
	for i, it := range items {
		wg.Go(func() {
			if starts != nil {
				time.Sleep(starts[i])
			}
			v, err := b.Do(ctx, it.Group, it)
			outs[i] = outcome{ID: it.ID, Resp: v, Err: err}
		})
	}
	wg.Wait()
	return outs
}

func TestNewValidates(t *testing.T) {
	tests := []struct {
		name string
		give batcher.Config[item]
		want string
	}{
		{"negative MaxItems", batcher.Config[item]{MaxItems: -1}, "batcher: MaxItems -1 is negative"},
		{"negative MaxBytes", batcher.Config[item]{MaxBytes: -1}, "batcher: MaxBytes -1 is negative"},
		{"MaxBytes without Size", batcher.Config[item]{MaxBytes: 10}, "batcher: MaxBytes 10 needs a Size func"},
		{"negative Linger", batcher.Config[item]{Linger: -1}, "batcher: Linger -1ns is negative"},
		{"negative FlushTimeout", batcher.Config[item]{FlushTimeout: -1}, "batcher: FlushTimeout -1ns is negative"},
		{"negative MaxInFlight", batcher.Config[item]{MaxInFlight: -1}, "batcher: MaxInFlight -1 is negative"},
		{"negative IdleTTL", batcher.Config[item]{IdleTTL: -1}, "batcher: IdleTTL -1ns is negative"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := batcher.New(tt.give, newRecorder().flush)
			require.EqualError(t, err, tt.want+": invalid config")
			b := newBatcher(t, batcher.Config[item]{}, newRecorder())
			defer b.Close()
			require.EqualError(t, b.SetConfig(tt.give), tt.want+": invalid config")
		})
	}
	_, err := batcher.New[int, item, int](batcher.Config[item]{}, nil)
	require.EqualError(t, err, "batcher: nil flush func: invalid config")
}

func TestDefaults(t *testing.T) {
	b := newBatcher(t, batcher.Config[item]{}, newRecorder())
	defer b.Close()
	got := b.Config()
	assert.Equal(t, batcher.DefaultMaxItems, got.MaxItems)
	assert.Equal(t, batcher.DefaultLinger, got.Linger)
	assert.Equal(t, batcher.DefaultFlushTimeout, got.FlushTimeout)
	assert.Equal(t, batcher.DefaultMaxInFlight, got.MaxInFlight)
	assert.Equal(t, batcher.DefaultIdleTTL, got.IdleTTL)
	assert.Zero(t, got.MaxBytes)
}

// TestLingerFlushesExactlyAtLinger: three items arriving 0, 1 and 3 ms after the
// first go out in one call exactly Linger after the FIRST item.
func TestLingerFlushesExactlyAtLinger(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRecorder()
		b := newBatcher(t, batcher.Config[item]{MaxItems: 10, Linger: 5 * time.Millisecond}, r)
		defer b.Close()
		start := time.Now()
		items := []item{{1, 7}, {2, 7}, {3, 7}}
		outs := doAll(t.Context(), b, items, []time.Duration{0, time.Millisecond, 3 * time.Millisecond})
		require.Empty(t, checkOutcomes(r, outs))
		sent := r.snapshot()
		require.Len(t, sent, 1)
		assert.Equal(t, 5*time.Millisecond, sent[0].At.Sub(start), "flushed exactly at linger")
		assert.ElementsMatch(t, []int{1, 2, 3}, sent[0].IDs)
		assert.Equal(t, 5*time.Millisecond, time.Since(start), "callers answered at the flush")
	})
}

// TestMaxItemsFlushesAtOnce: the item that fills a batch dispatches it with no
// wait; the rest start a new batch that flushes at its own linger.
func TestMaxItemsFlushesAtOnce(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRecorder()
		b := newBatcher(t, batcher.Config[item]{MaxItems: 4, Linger: time.Second}, r)
		defer b.Close()
		start := time.Now()
		var items []item
		var starts []time.Duration
		for i := range 10 {
			items = append(items, item{i, 1})
			starts = append(starts, time.Duration(i)*time.Millisecond)
		}
		outs := doAll(t.Context(), b, items, starts)
		require.Empty(t, checkOutcomes(r, outs))
		sent := r.snapshot()
		require.Len(t, sent, 3)
		assert.Equal(t, []int{0, 1, 2, 3}, sent[0].IDs)
		assert.Equal(t, 3*time.Millisecond, sent[0].At.Sub(start), "full at the 4th item")
		assert.Equal(t, []int{4, 5, 6, 7}, sent[1].IDs)
		assert.Equal(t, 7*time.Millisecond, sent[1].At.Sub(start))
		assert.Equal(t, []int{8, 9}, sent[2].IDs)
		assert.Equal(t, 8*time.Millisecond+time.Second, sent[2].At.Sub(start), "linger of its first item")
		s := b.Stats()
		assert.Equal(t, uint64(10), s.Items)
		assert.Equal(t, uint64(3), s.Batches)
		assert.InDelta(t, (1+1+0.5)/3.0, s.MeanFill, 1e-6)
	})
}

func TestGroupsAreSeparate(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRecorder()
		b := newBatcher(t, batcher.Config[item]{MaxItems: 2, Linger: time.Millisecond}, r)
		defer b.Close()
		items := []item{{1, 1}, {2, 2}, {3, 1}, {4, 2}, {5, 3}}
		outs := doAll(t.Context(), b, items, nil)
		require.Empty(t, checkOutcomes(r, outs))
		got := map[int][]int{}
		for _, s := range r.snapshot() {
			got[s.Group] = append(got[s.Group], s.IDs...)
		}
		for g := range got {
			slicesSort(got[g])
		}
		assert.Equal(t, map[int][]int{1: {1, 3}, 2: {2, 4}, 3: {5}}, got)
	})
}

func TestMaxBytes(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRecorder()
		size := func(it item) int { return it.ID } // id doubles as size
		b := newBatcher(t, batcher.Config[item]{MaxItems: 100, MaxBytes: 10, Size: size, Linger: time.Millisecond}, r)
		defer b.Close()
		// 4+5 fit; 3 would exceed 10 so it opens the next batch; 7 fills it to 10
		// exactly; 20 is larger than MaxBytes and goes alone.
		items := []item{{4, 1}, {5, 1}, {3, 1}, {7, 1}, {20, 1}}
		starts := []time.Duration{0, 1, 2, 3, 4}
		outs := doAll(t.Context(), b, items, starts)
		require.Empty(t, checkOutcomes(r, outs))
		var ids [][]int
		for _, s := range r.snapshot() {
			ids = append(ids, s.IDs)
		}
		assert.Equal(t, [][]int{{4, 5}, {3, 7}, {20}}, ids)
	})
}

func TestErrorsReachTheirItems(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRecorder()
		r.failItem = func(id int) bool { return id == 2 }
		r.failBatch = func(ids []int) bool { return ids[0] >= 10 }
		b := newBatcher(t, batcher.Config[item]{MaxItems: 3, Linger: time.Millisecond}, r)
		defer b.Close()
		outs := doAll(t.Context(), b, []item{{1, 1}, {2, 1}, {3, 1}}, []time.Duration{0, 1, 2})
		outs = append(outs, doAll(t.Context(), b, []item{{10, 1}, {11, 1}}, nil)...)
		require.Empty(t, checkOutcomes(r, outs))
		assert.NoError(t, outs[0].Err)
		assert.ErrorIs(t, outs[1].Err, errItem, "per-item error")
		assert.NoError(t, outs[2].Err)
		assert.ErrorIs(t, outs[3].Err, errBatch, "batch error reaches every item")
		assert.ErrorIs(t, outs[4].Err, errBatch)
		assert.Equal(t, uint64(1), b.Stats().FlushErrors)
	})
}

func TestPanicAndGoexitReachEveryItem(t *testing.T) {
	tests := []struct {
		name  string
		give  func()
		value any
	}{
		{"panic", func() { panic("boom") }, "boom"},
		{"goexit", runtime.Goexit, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				b, err := batcher.New(batcher.Config[int]{MaxItems: 2},
					func(context.Context, int, []int, []batcher.Result[int]) error { tt.give(); return nil })
				require.NoError(t, err)
				defer b.Close()
				var wg sync.WaitGroup
				for i := range 2 {
					wg.Go(func() {
						_, err := b.Do(t.Context(), 0, i)
						var pe *batcher.PanicError
						require.ErrorAs(t, err, &pe)
						if tt.value != nil {
							assert.Equal(t, tt.value, pe.Value)
							assert.Contains(t, pe.Error(), "boom")
						}
					})
				}
				wg.Wait()
				assert.Equal(t, uint64(1), b.Stats().FlushErrors)
			})
		})
	}
}

// TestCancelBeforeDispatchDropsItem: a caller whose ctx ends while its batch is
// open is removed; the rest of the batch is flushed without it.
func TestCancelBeforeDispatchDropsItem(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRecorder()
		b := newBatcher(t, batcher.Config[item]{MaxItems: 10, Linger: 10 * time.Millisecond}, r)
		defer b.Close()
		ctx, cancel := context.WithTimeout(t.Context(), 2*time.Millisecond)
		defer cancel()
		var wg sync.WaitGroup
		var early outcome
		wg.Go(func() {
			v, err := b.Do(ctx, 1, item{1, 1})
			early = outcome{1, v, err}
		})
		outs := doAll(t.Context(), b, []item{{2, 1}, {3, 1}}, nil)
		wg.Wait()
		outs = append(outs, early)
		require.Empty(t, checkOutcomes(r, outs))
		assert.ErrorIs(t, early.Err, context.DeadlineExceeded)
		sent := r.snapshot()
		require.Len(t, sent, 1)
		assert.ElementsMatch(t, []int{2, 3}, sent[0].IDs, "cancelled item never sent")
		assert.Equal(t, uint64(1), b.Stats().Cancelled)
	})
}

// TestAllCancelledDropsBatch: a batch whose callers all left is never flushed,
// and the next item opens a fresh batch with a fresh linger.
func TestAllCancelledDropsBatch(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRecorder()
		b := newBatcher(t, batcher.Config[item]{MaxItems: 10, Linger: 10 * time.Millisecond}, r)
		defer b.Close()
		ctx, cancel := context.WithTimeout(t.Context(), time.Millisecond)
		defer cancel()
		_, err := b.Do(ctx, 1, item{1, 1})
		require.ErrorIs(t, err, context.DeadlineExceeded)
		synctest.Wait()
		assert.Equal(t, 0, b.Stats().PendingItems)
		start := time.Now()
		outs := doAll(t.Context(), b, []item{{2, 1}}, nil)
		require.Empty(t, checkOutcomes(r, outs))
		sent := r.snapshot()
		require.Len(t, sent, 1)
		assert.Equal(t, 10*time.Millisecond, sent[0].At.Sub(start), "fresh linger")
	})
}

// TestCancelAfterDispatch: once dispatched the item stays in the backend call; the
// caller returns ctx.Err() at once and the flush runs to its end.
func TestCancelAfterDispatch(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRecorder()
		r.delay.Store(int64(50 * time.Millisecond))
		b := newBatcher(t, batcher.Config[item]{MaxItems: 1}, r)
		defer b.Close()
		ctx, cancel := context.WithTimeout(t.Context(), 10*time.Millisecond)
		defer cancel()
		start := time.Now()
		_, err := b.Do(ctx, 1, item{1, 1})
		require.ErrorIs(t, err, context.DeadlineExceeded)
		assert.Equal(t, 10*time.Millisecond, time.Since(start), "left at its deadline")
		synctest.Wait()
		assert.Equal(t, 1, b.Stats().InFlightBatches, "flush still running")
		time.Sleep(40 * time.Millisecond)
		synctest.Wait()
		assert.Equal(t, 0, b.Stats().InFlightBatches)
		assert.Equal(t, map[int]int{1: 1}, r.seen, "sent once")
	})
}

// TestFlushContext: the flush ctx is no caller's (a cancelled caller does not end
// it, caller values are absent) and ends at FlushTimeout.
func TestFlushContext(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		type key struct{}
		var gotErr error
		var gotVal any
		var took time.Duration
		b, err := batcher.New(batcher.Config[int]{MaxItems: 1, FlushTimeout: 30 * time.Millisecond},
			func(ctx context.Context, _ int, _ []int, _ []batcher.Result[int]) error {
				start := time.Now()
				gotVal = ctx.Value(key{})
				<-ctx.Done()
				took, gotErr = time.Since(start), ctx.Err()
				return ctx.Err()
			})
		require.NoError(t, err)
		ctx, cancel := context.WithCancel(context.WithValue(t.Context(), key{}, "caller"))
		go func() { time.Sleep(time.Millisecond); cancel() }()
		_, err = b.Do(ctx, 0, 1)
		require.ErrorIs(t, err, context.Canceled)
		require.NoError(t, b.Close())
		assert.Nil(t, gotVal, "no caller's values")
		assert.ErrorIs(t, gotErr, context.DeadlineExceeded)
		assert.Equal(t, 30*time.Millisecond, took, "bounded by FlushTimeout, not by the caller")
	})
}

// TestFlushContextOutlivesFlush: a flush may keep its context after it
// returns (a context derived from it is watched by a goroutine; clients such
// as rueidis do this). The context must stay the flush's own, unchanged by the
// batches that follow: here every kept context still reports the deadline it
// had during its flush after 200 more batches have run.
func TestFlushContextOutlivesFlush(t *testing.T) {
	type kept struct {
		ctx      context.Context
		deadline time.Time
	}
	var mu sync.Mutex
	var all []kept
	var cancels []context.CancelFunc
	b, err := batcher.New(batcher.Config[int]{MaxItems: 1, FlushTimeout: time.Hour},
		func(ctx context.Context, _ int, _ []int, _ []batcher.Result[int]) error {
			d, _ := ctx.Deadline()
			child, cancel := context.WithCancel(ctx) // its goroutine reads ctx later
			mu.Lock()
			all = append(all, kept{ctx, d})
			cancels = append(cancels, cancel)
			mu.Unlock()
			_ = child
			return nil
		})
	require.NoError(t, err)
	for i := range 200 {
		_, err := b.Do(t.Context(), 0, i)
		require.NoError(t, err)
	}
	require.NoError(t, b.Close())
	mu.Lock()
	defer mu.Unlock()
	changed := 0
	for _, k := range all {
		if d, _ := k.ctx.Deadline(); !d.Equal(k.deadline) {
			changed++
		}
	}
	for _, c := range cancels {
		c()
	}
	assert.Zero(t, changed, "kept flush contexts rewritten by later batches")
}

func TestDedup(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var calls [][]string
		b, err := batcher.New(batcher.Config[string]{
			MaxItems: 6, Linger: time.Hour,
			Key: func(s string) (string, bool) { return s, s != "nodedup" },
		}, func(_ context.Context, _ int, reqs []string, out []batcher.Result[string]) error {
			calls = append(calls, append([]string(nil), reqs...))
			for i, r := range reqs {
				out[i].Resp = r + "!"
			}
			return nil
		})
		require.NoError(t, err)
		defer b.Close()
		give := []string{"a", "b", "a", "nodedup", "nodedup", "a"}
		got := make([]string, len(give))
		var wg sync.WaitGroup
		for i, s := range give {
			wg.Go(func() {
				time.Sleep(time.Duration(i) * time.Millisecond) // arrival order
				v, err := b.Do(t.Context(), 0, s)
				assert.NoError(t, err)
				got[i] = v
			})
		}
		wg.Wait()
		assert.Equal(t, []string{"a!", "b!", "a!", "nodedup!", "nodedup!", "a!"}, got, "result fans out")
		assert.Equal(t, [][]string{{"a", "b", "nodedup", "nodedup"}}, calls, "identical items sent once")
		s := b.Stats()
		assert.Equal(t, uint64(6), s.Items)
		assert.Equal(t, uint64(4), s.Sent)
		assert.Equal(t, uint64(2), s.Deduped)
	})
}

// TestInFlightCap: while MaxInFlight batches are in the backend, Do rejects at
// once; a batch that closes while the cap is reached is answered ErrOverloaded.
func TestInFlightCap(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRecorder()
		r.delay.Store(int64(100 * time.Millisecond))
		b := newBatcher(t, batcher.Config[item]{MaxItems: 2, Linger: 10 * time.Millisecond, MaxInFlight: 1}, r)
		defer b.Close()
		var wg sync.WaitGroup
		var outs []outcome
		wg.Go(func() { outs = doAll(t.Context(), b, []item{{1, 1}, {2, 1}}, nil) })
		synctest.Wait() // batch {1,2} is in the backend
		start := time.Now()
		_, err := b.Do(t.Context(), 1, item{3, 1})
		require.ErrorIs(t, err, batcher.ErrOverloaded)
		assert.Zero(t, time.Since(start), "rejected at once")
		wg.Wait()
		outs = append(outs, outcome{ID: 3, Err: err})
		require.Empty(t, checkOutcomes(r, outs))
		assert.Equal(t, uint64(1), b.Stats().Rejected)
	})
}

func TestRejectAtDispatch(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRecorder()
		r.delay.Store(int64(100 * time.Millisecond))
		b := newBatcher(t, batcher.Config[item]{MaxItems: 1, Linger: 10 * time.Millisecond, MaxInFlight: 1}, r)
		defer b.Close()
		// Admit an item into an open batch of group 2 while nothing is in flight,
		// then fill the cap with group 1 before that batch closes.
		require.NoError(t, b.SetConfig(batcher.Config[item]{MaxItems: 2, Linger: 10 * time.Millisecond, MaxInFlight: 1}))
		var wg sync.WaitGroup
		var late outcome
		wg.Go(func() { v, err := b.Do(t.Context(), 2, item{9, 2}); late = outcome{9, v, err} })
		synctest.Wait()
		outs := doAll(t.Context(), b, []item{{1, 1}, {2, 1}}, nil) // fills and flushes at once
		wg.Wait()
		outs = append(outs, late)
		require.Empty(t, checkOutcomes(r, outs))
		assert.ErrorIs(t, late.Err, batcher.ErrOverloaded, "closed while the cap was reached")
	})
}

func TestCloseFlushesPendingAndRejectsAfter(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRecorder()
		b := newBatcher(t, batcher.Config[item]{MaxItems: 100, Linger: time.Hour}, r)
		var wg sync.WaitGroup
		outs := make([]outcome, 5)
		for i := range 5 {
			wg.Go(func() {
				v, err := b.Do(t.Context(), i%2, item{i, i % 2})
				outs[i] = outcome{i, v, err}
			})
		}
		synctest.Wait()
		start := time.Now()
		require.NoError(t, b.Close())
		assert.Zero(t, time.Since(start), "Close does not wait for the linger")
		wg.Wait()
		require.Empty(t, checkOutcomes(r, outs))
		for _, o := range outs {
			assert.NoError(t, o.Err)
		}
		_, err := b.Do(t.Context(), 0, item{99, 0})
		assert.ErrorIs(t, err, batcher.ErrClosed)
		require.NoError(t, b.Close(), "second Close is fine")
		assert.Equal(t, 0, b.Stats().LiveGroups)
	})
}

func TestCtxDoneBeforeDo(t *testing.T) {
	r := newRecorder()
	b := newBatcher(t, batcher.Config[item]{}, r)
	defer b.Close()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := b.Do(ctx, 0, item{1, 0})
	require.ErrorIs(t, err, context.Canceled)
	assert.Empty(t, r.seen)
}

func TestPanicErrorUnwrap(t *testing.T) {
	pe := &batcher.PanicError{Value: errBatch}
	assert.ErrorIs(t, pe, errBatch)
	assert.Nil(t, (&batcher.PanicError{Value: 1}).Unwrap())
	assert.True(t, errors.Is(pe, errBatch))
}

// TestSetConfigAppliesToNextItem: a lower MaxItems closes the open batch on its
// next item; the open batch keeps the linger it was opened with.
func TestSetConfigAppliesToNextItem(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRecorder()
		b := newBatcher(t, batcher.Config[item]{MaxItems: 10, Linger: time.Second}, r)
		defer b.Close()
		start := time.Now()
		var wg sync.WaitGroup
		var outs []outcome
		wg.Go(func() { outs = doAll(t.Context(), b, []item{{1, 1}, {2, 1}}, []time.Duration{0, time.Millisecond}) })
		synctest.Wait()
		require.NoError(t, b.SetConfig(batcher.Config[item]{MaxItems: 2, Linger: time.Hour}))
		wg.Wait()
		require.Empty(t, checkOutcomes(r, outs))
		sent := r.snapshot()
		require.Len(t, sent, 1)
		assert.Equal(t, time.Millisecond, sent[0].At.Sub(start), "full at the 2nd item under the new MaxItems")
		assert.Equal(t, 2, b.Config().MaxItems)
		// The next batch uses the new linger.
		start = time.Now()
		outs = append(outs, doAll(t.Context(), b, []item{{3, 1}}, nil)...)
		require.Empty(t, checkOutcomes(r, outs))
		assert.Equal(t, time.Hour, r.snapshot()[1].At.Sub(start))
	})
}

// TestSizeChangedBySetConfig: Size may come and go at run time, with batches
// open and with recycled batches, without misaligned sizes or a panic when a
// caller leaves.
func TestSizeChangedBySetConfig(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRecorder()
		size := func(it item) int { return it.ID }
		withSize := batcher.Config[item]{MaxItems: 10, MaxBytes: 100, Size: size, Linger: 5 * time.Millisecond}
		noSize := batcher.Config[item]{MaxItems: 10, Linger: 5 * time.Millisecond}
		b := newBatcher(t, withSize, r)
		defer b.Close()
		var outs []outcome
		outs = append(outs, doAll(t.Context(), b, []item{{1, 1}, {2, 1}}, nil)...) // batch recycled after
		for _, give := range []struct{ first, second batcher.Config[item] }{
			{noSize, withSize}, {withSize, noSize}, {noSize, noSize},
		} {
			require.NoError(t, b.SetConfig(give.first))
			ctx, cancel := context.WithCancel(t.Context())
			var wg sync.WaitGroup
			base := 10 * (len(outs) + 1)
			wg.Go(func() {
				_, err := b.Do(ctx, 1, item{base, 1}) // leaves before dispatch
				outs = append(outs, outcome{ID: base, Err: err})
			})
			synctest.Wait()
			require.NoError(t, b.SetConfig(give.second))
			var more []outcome
			wg.Go(func() { more = doAll(t.Context(), b, []item{{base + 1, 1}, {base + 2, 1}}, nil) })
			synctest.Wait() // all three in the open batch
			cancel()        // the first leaves it
			wg.Wait()
			outs = append(outs, more...)
			require.ErrorIs(t, outs[len(outs)-3].Err, context.Canceled)
		}
		require.Empty(t, checkOutcomes(r, outs))
	})
}
