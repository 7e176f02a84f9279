package batcher_test

import (
	"context"
	"math/rand/v2"
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

// TestNaturalLoneCallerPaysNoLinger: one caller at a time, a 1 ms backend and a
// 10 ms linger. FlushOnLinger answers after linger + backend; FlushNatural
// after the backend alone, one item per call.
func TestNaturalLoneCallerPaysNoLinger(t *testing.T) {
	tests := []struct {
		policy batcher.FlushPolicy
		want   time.Duration
	}{
		{batcher.FlushOnLinger, 11 * time.Millisecond},
		{batcher.FlushNatural, time.Millisecond},
	}
	for _, tt := range tests {
		t.Run(tt.policy.String(), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				r := newRecorder()
				r.delay.Store(int64(time.Millisecond))
				b := newBatcher(t, batcher.Config[item]{MaxItems: 8, Linger: 10 * time.Millisecond, Policy: tt.policy}, r)
				defer b.Close()
				for i := range 3 { // one after the other
					start := time.Now()
					v, err := b.Do(context.Background(), 1, item{i, 1})
					require.NoError(t, err)
					assert.Equal(t, 2*i, v)
					assert.Equal(t, tt.want, time.Since(start))
				}
				assert.Len(t, r.snapshot(), 3)
			})
		})
	}
}

// TestNaturalGathersWhileInFlight: item 0 flushes at once; items 1-3 arrive
// while its 5 ms flush is in flight and go together the moment it returns;
// item 4, arriving while that second flush runs, goes when it returns.
func TestNaturalGathersWhileInFlight(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRecorder()
		r.delay.Store(int64(5 * time.Millisecond))
		b := newBatcher(t, batcher.Config[item]{MaxItems: 8, Linger: time.Second, Policy: batcher.FlushNatural}, r)
		defer b.Close()
		start := time.Now()
		items := []item{{0, 1}, {1, 1}, {2, 1}, {3, 1}, {4, 1}}
		ms := time.Millisecond
		outs := doAll(t.Context(), b, items, []time.Duration{0, ms, 2 * ms, 3 * ms, 6 * ms})
		require.Empty(t, checkOutcomes(r, outs))
		sent := r.snapshot()
		require.Len(t, sent, 3)
		assert.Equal(t, []int{0}, sent[0].IDs)
		assert.Equal(t, 5*ms, sent[0].At.Sub(start), "dispatched at 0")
		assert.Equal(t, []int{1, 2, 3}, sent[1].IDs)
		assert.Equal(t, 10*ms, sent[1].At.Sub(start), "dispatched when the first returned")
		assert.Equal(t, []int{4}, sent[2].IDs)
		assert.Equal(t, 15*ms, sent[2].At.Sub(start), "dispatched when the second returned")
		assert.Equal(t, 15*ms, time.Since(start))
	})
}

// TestNaturalLingerIsUpperBound: with a 50 ms flush in flight, an item that
// arrives 1 ms later waits at most its 2 ms linger, not for the flush.
func TestNaturalLingerIsUpperBound(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRecorder()
		r.delay.Store(int64(50 * time.Millisecond))
		var dispatched sync.Map // id -> time the flush got it
		cfg := batcher.Config[item]{MaxItems: 8, Linger: 2 * time.Millisecond, Policy: batcher.FlushNatural}
		b, err := batcher.New(cfg, func(ctx context.Context, g int, reqs []item, out []batcher.Result[int]) error {
			for _, q := range reqs {
				dispatched.Store(q.ID, time.Now())
			}
			return r.flush(ctx, g, reqs, out)
		})
		require.NoError(t, err)
		defer b.Close()
		start := time.Now()
		ms := time.Millisecond
		outs := doAll(t.Context(), b, []item{{0, 1}, {1, 1}}, []time.Duration{0, ms})
		require.Empty(t, checkOutcomes(r, outs))
		at0, _ := dispatched.Load(0)
		at1, _ := dispatched.Load(1)
		assert.Equal(t, time.Duration(0), at0.(time.Time).Sub(start))
		assert.Equal(t, 3*ms, at1.(time.Time).Sub(start), "arrival + linger, while the first flush is in flight")
		assert.Equal(t, 53*ms, time.Since(start))
	})
}

// TestNaturalFullBatchWhileInFlight: items that fill MaxItems while a flush is
// in flight go at once; the group then has two flushes in flight.
func TestNaturalFullBatchWhileInFlight(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRecorder()
		r.delay.Store(int64(10 * time.Millisecond))
		b := newBatcher(t, batcher.Config[item]{MaxItems: 2, Linger: time.Second, Policy: batcher.FlushNatural}, r)
		defer b.Close()
		start := time.Now()
		ms := time.Millisecond
		outs := doAll(t.Context(), b, []item{{0, 1}, {1, 1}, {2, 1}, {3, 1}}, []time.Duration{0, ms, 2 * ms, 3 * ms})
		require.Empty(t, checkOutcomes(r, outs))
		sent := r.snapshot()
		require.Len(t, sent, 3)
		assert.Equal(t, []int{0}, sent[0].IDs)
		assert.Equal(t, []int{1, 2}, sent[1].IDs)
		assert.Equal(t, 12*ms, sent[1].At.Sub(start), "full at 2 ms, in flight beside the first")
		assert.Equal(t, []int{3}, sent[2].IDs)
		assert.Equal(t, 20*ms, sent[2].At.Sub(start), "gathered, dispatched when the first returned at 10 ms")
	})
}

// TestNaturalCancelledCallerLeaves: a caller with a cancellable context whose
// deadline passes while its item gathers behind an in-flight flush is removed
// and never sent; the others are answered.
func TestNaturalCancelledCallerLeaves(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRecorder()
		r.delay.Store(int64(10 * time.Millisecond))
		b := newBatcher(t, batcher.Config[item]{MaxItems: 8, Linger: time.Second, Policy: batcher.FlushNatural}, r)
		defer b.Close()
		var wg sync.WaitGroup
		var errLeft error
		wg.Go(func() { _, _ = b.Do(t.Context(), 1, item{0, 1}) })
		time.Sleep(time.Millisecond)
		wg.Go(func() {
			ctx, cancel := context.WithTimeout(t.Context(), 2*time.Millisecond)
			defer cancel()
			_, errLeft = b.Do(ctx, 1, item{1, 1})
		})
		wg.Go(func() { _, _ = b.Do(t.Context(), 1, item{2, 1}) })
		wg.Wait()
		require.ErrorIs(t, errLeft, context.DeadlineExceeded)
		sent := r.snapshot()
		require.Len(t, sent, 2)
		assert.Equal(t, []int{2}, sent[1].IDs, "the caller that left was not sent")
		assert.Equal(t, uint64(1), b.Stats().Cancelled)
	})
}

// TestNaturalRejectedFlushReleasesGroup: a batch rejected at the in-flight cap
// does not leave its group counted as flushing (the next lone item still goes
// at once).
func TestNaturalRejectedFlushReleasesGroup(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRecorder()
		r.delay.Store(int64(10 * time.Millisecond))
		b := newBatcher(t, batcher.Config[item]{MaxItems: 1, Linger: time.Second, MaxInFlight: 1, Policy: batcher.FlushNatural}, r)
		defer b.Close()
		var wg sync.WaitGroup
		wg.Go(func() { _, _ = b.Do(t.Context(), 1, item{0, 1}) }) // group 1 in flight, cap reached
		synctest.Wait()
		_, err := b.Do(t.Context(), 2, item{1, 2})
		require.ErrorIs(t, err, batcher.ErrOverloaded, "admission refuses at the cap")
		wg.Wait()
		start := time.Now()
		v, err := b.Do(t.Context(), 1, item{2, 1})
		require.NoError(t, err)
		assert.Equal(t, 4, v)
		assert.Equal(t, 10*time.Millisecond, time.Since(start), "flushed at once")
	})
}

// TestNaturalStressBounds: 32 goroutines, 8 groups, FlushNatural with a byte
// limit, a jittery backend, random cancels, under -race: every item gets
// exactly one result (its own), no batch exceeds MaxItems or MaxBytes (an
// oversized item goes alone), and the gauges return to zero.
func TestNaturalStressBounds(t *testing.T) {
	leak.Check(t)
	const (
		workers  = 32
		perW     = 500
		maxItems = 6
		maxBytes = 12
	)
	size := func(it item) int { return 1 + it.ID%7 }
	r := newRecorder()
	var over atomic.Int64
	cfg := batcher.Config[item]{MaxItems: maxItems, MaxBytes: maxBytes, Size: size, Linger: 300 * time.Microsecond,
		MaxInFlight: 64, Policy: batcher.FlushNatural}
	b, err := batcher.New(cfg, func(ctx context.Context, g int, reqs []item, out []batcher.Result[int]) error {
		n := 0
		for _, q := range reqs {
			n += size(q)
		}
		if len(reqs) > maxItems || (n > maxBytes && len(reqs) > 1) {
			over.Add(1)
		}
		if reqs[0].ID%3 == 0 {
			time.Sleep(time.Duration(reqs[0].ID%50) * time.Microsecond)
		}
		return r.flush(ctx, g, reqs, out)
	})
	require.NoError(t, err)
	outs := make([][]outcome, workers)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			rng := rand.New(rand.NewPCG(uint64(w), 7))
			for i := range perW {
				it := item{ID: w*perW + i, Group: rng.IntN(8)}
				ctx, cancel := context.Background(), context.CancelFunc(func() {})
				if rng.IntN(8) == 0 {
					ctx, cancel = context.WithTimeout(ctx, time.Duration(rng.IntN(200))*time.Microsecond)
				}
				v, err := b.Do(ctx, it.Group, it)
				cancel()
				outs[w] = append(outs[w], outcome{ID: it.ID, Resp: v, Err: err})
			}
		})
	}
	wg.Wait()
	require.NoError(t, b.Close())
	var all []outcome
	for _, o := range outs {
		all = append(all, o...)
	}
	require.Len(t, all, workers*perW)
	require.Empty(t, checkOutcomes(r, all))
	assert.Zero(t, over.Load(), "batches over MaxItems or MaxBytes")
	s := b.Stats()
	_, ctxErrs, sent := tally(r, all)
	assert.Equal(t, uint64(sent), s.Items)
	assert.GreaterOrEqual(t, s.Items+s.Rejected+s.Cancelled, uint64(len(all)-ctxErrs))
	assert.Zero(t, s.InFlightBatches+s.InFlightItems+s.PendingItems)
	t.Logf("%d calls: %d sent in %d batches (%.2f items/batch), %d cancelled, %d rejected",
		len(all), s.Items, s.Batches, s.MeanBatchSize(), s.Cancelled, s.Rejected)
}
