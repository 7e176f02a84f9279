package batcher_test

import (
	"context"
	"errors"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/batcher"
	"github.com/tierkit/tierkit/internal/leak"
)

// TestStressDedup is TestStress with items that Config.Key merges, on real
// goroutines under -race: each call puts a pair of identical items (pairKey)
// into one group, the first with Start and the second with Do, each with its
// own random deadline, while batch and item errors, the in-flight cap and
// SetConfig (MaxItems, the cap, the key on and off) churn. It checks that a
// merged item gets its pair's answer, error or batch error (never another
// item's), that nothing is lost or sent twice, and that the stats add up.
// FuzzBatcher checks the same in virtual time; this one has the scheduler
// interleave the cancels with the flush goroutines.
func TestStressDedup(t *testing.T) {
	for _, policy := range []batcher.FlushPolicy{batcher.FlushOnLinger, batcher.FlushNatural} {
		t.Run(policy.String(), func(t *testing.T) { stressDedup(t, policy) })
	}
}

func stressDedup(t *testing.T, policy batcher.FlushPolicy) {
	leak.Check(t)
	const workers = 32
	pairs := stressOps() / 4
	r := newRecorder()
	r.failBatch = func(ids []int) bool { return ids[0]%10 == 0 }
	r.failItem = func(id int) bool { return id%7 == 0 }
	r.delay.Store(int64(20 * time.Microsecond))
	base := batcher.Config[item]{MaxItems: 8, Linger: 200 * time.Microsecond, MaxInFlight: 8,
		IdleTTL: time.Millisecond, Policy: policy, Key: pairKey}
	b, err := batcher.New(base, r.flush)
	require.NoError(t, err)

	outs := make([]outcome, 2*pairs) // by id: every caller writes its own
	var next atomic.Int64
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() { dedupWorker(b, &next, pairs, w, outs) })
	}
	stop := make(chan struct{})
	var tuner sync.WaitGroup
	tuner.Go(func() {
		rng := rand.New(rand.NewPCG(7, 7))
		for {
			select {
			case <-stop:
				return
			case <-time.After(time.Millisecond):
			}
			cfg := base
			cfg.MaxItems = 1 + rng.IntN(16)
			cfg.MaxInFlight = 2 + rng.IntN(12)
			if rng.IntN(4) == 0 {
				cfg.Key = nil
			}
			assert.NoError(t, b.SetConfig(cfg))
		}
	})
	wg.Wait()
	close(stop)
	tuner.Wait()
	require.NoError(t, b.Close())

	merged := unmerge(r, make([]byte, len(outs)), outs) // a pair shares its group
	require.Empty(t, checkOutcomes(r, outs))
	overloaded, ctxErrs, sent := tally(r, outs)
	s := b.Stats()
	assert.Equal(t, uint64(sent), s.Sent)
	assert.Equal(t, s.Sent+s.Deduped, s.Items, "every item dispatched was sent or shared a result")
	assert.GreaterOrEqual(t, s.Deduped, uint64(merged))
	assert.LessOrEqual(t, s.Deduped, uint64(merged+ctxErrs))
	assert.GreaterOrEqual(t, s.Rejected, uint64(overloaded))
	assert.LessOrEqual(t, s.Rejected, uint64(overloaded+ctxErrs))
	accounted := s.Items + s.Rejected + s.Cancelled
	assert.LessOrEqual(t, accounted, uint64(len(outs)))
	assert.GreaterOrEqual(t, accounted, uint64(len(outs)-ctxErrs), "every call is sent, rejected or cancelled")
	assert.Zero(t, s.InFlightBatches+s.InFlightItems+s.PendingItems)
	assert.Positive(t, merged, "merges were exercised")
	assert.Positive(t, s.Cancelled, "cancels before dispatch were exercised")
	t.Logf("%d items: %d sent, %d merged, %d rejected, %d cancelled, %d ctx errors",
		len(outs), s.Sent, s.Deduped, s.Rejected, s.Cancelled, ctxErrs)
}

// dedupWorker sends pairs 2k (Start) and 2k+1 (Do) to one random group until
// next passes pairs, each item with a random deadline one time in four.
func dedupWorker(b *batcher.Batcher[int, item, int], next *atomic.Int64, pairs, w int, outs []outcome) {
	rng := rand.New(rand.NewPCG(uint64(w), 2))
	itemCtx := func() (context.Context, context.CancelFunc) {
		if rng.IntN(4) == 0 {
			return context.WithTimeout(context.Background(), time.Duration(rng.IntN(400))*time.Microsecond)
		}
		return context.Background(), func() {}
	}
	for {
		k := int(next.Add(1)) - 1
		if k >= pairs {
			return
		}
		g := rng.IntN(20)
		a, c := item{ID: 2 * k, Group: g}, item{ID: 2*k + 1, Group: g}
		actx, acancel := itemCtx()
		cctx, ccancel := itemCtx()
		p := b.Start(actx, g, a)
		cv, cerr := b.Do(cctx, g, c)
		av, aerr := p.Wait()
		acancel()
		ccancel()
		outs[a.ID] = outcome{ID: a.ID, Resp: av, Err: aerr}
		outs[c.ID] = outcome{ID: c.ID, Resp: cv, Err: cerr}
		if errors.Is(aerr, batcher.ErrOverloaded) || errors.Is(cerr, batcher.ErrOverloaded) {
			<-time.After(time.Duration(rng.IntN(1000)) * time.Microsecond) // back off
		}
	}
}
