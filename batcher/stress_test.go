package batcher_test

import (
	"cmp"
	"context"
	"errors"
	"math/rand/v2"
	"os"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/batcher"
	"github.com/tierkit/tierkit/internal/leak"
)

// stressOps is the number of Do calls of TestStress; TIERKIT_LONG=1 runs 10x.
func stressOps() int {
	if os.Getenv("TIERKIT_LONG") == "1" {
		return 400_000
	}
	return 40_000
}

// TestStress hammers one batcher from many goroutines over many groups with
// random context cancels, random batch and item errors, a slow backend that
// trips the in-flight cap, and concurrent SetConfig calls, then checks that no
// item was lost or duplicated and that the stats add up.
func TestStress(t *testing.T) {
	for _, policy := range []batcher.FlushPolicy{batcher.FlushOnLinger, batcher.FlushNatural, 0} {
		name := policy.String()
		if policy == 0 {
			name = "switching" // SetConfig flips the policy while traffic flows
		}
		t.Run(name, func(t *testing.T) { stress(t, policy) })
	}
}

func stress(t *testing.T, policy batcher.FlushPolicy) {
	leak.Check(t)
	const workers = 64
	ops := stressOps()
	r := newRecorder()
	r.failBatch = func(ids []int) bool { return ids[0]%10 == 0 }
	r.failItem = func(id int) bool { return id%7 == 0 }
	r.delay.Store(int64(20 * time.Microsecond))
	base := batcher.Config[item]{MaxItems: 8, Linger: 200 * time.Microsecond, MaxInFlight: 8, IdleTTL: time.Millisecond, Policy: policy}
	b, err := batcher.New(base, r.flush)
	require.NoError(t, err)

	outs := make([][]outcome, workers)
	var wg sync.WaitGroup
	var next atomic.Int64
	for w := range workers {
		wg.Go(func() { outs[w] = stressWorker(b, &next, int64(ops), w) })
	}
	stop := make(chan struct{})
	var tuner sync.WaitGroup
	tuner.Go(func() { // operators turn knobs while traffic flows
		rng := rand.New(rand.NewPCG(9, 9))
		for {
			select {
			case <-stop:
				return
			case <-time.After(time.Millisecond):
			}
			cfg := base
			cfg.MaxItems = 1 + rng.IntN(16)
			cfg.MaxInFlight = 2 + rng.IntN(12)
			if policy == 0 {
				cfg.Policy = batcher.FlushPolicy(rng.IntN(3)) // 0 is the default, FlushOnLinger
			}
			if rng.IntN(3) == 0 {
				cfg.Key = func(it item) (string, bool) { return "", false }
			}
			if rng.IntN(2) == 0 {
				cfg.Size = func(it item) int { return 1 + it.ID%5 }
				cfg.MaxBytes = 4 + rng.IntN(20)
			}
			assert.NoError(t, b.SetConfig(cfg))
		}
	})
	wg.Wait()
	close(stop)
	tuner.Wait()
	require.NoError(t, b.Close())

	var all []outcome
	for _, o := range outs {
		all = append(all, o...)
	}
	require.Empty(t, checkOutcomes(r, all))

	overloaded, ctxErrs, sent := tally(r, all)
	s := b.Stats()
	assert.Equal(t, uint64(sent), s.Items, "Stats.Items counts exactly the items sent")
	assert.Equal(t, uint64(sent), s.Sent)
	// A caller whose ctx ends as its batch is rejected sees ctx.Err() but counts
	// as rejected.
	assert.GreaterOrEqual(t, s.Rejected, uint64(overloaded))
	assert.LessOrEqual(t, s.Rejected, uint64(overloaded+ctxErrs))
	assert.LessOrEqual(t, s.Cancelled, uint64(ctxErrs))
	assert.Equal(t, uint64(len(r.snapshot())), s.Batches)
	assert.Equal(t, 0, s.InFlightBatches)
	assert.Equal(t, 0, s.InFlightItems)
	assert.Equal(t, 0, s.PendingItems)
	accounted := s.Items + s.Rejected + s.Cancelled
	assert.LessOrEqual(t, accounted, uint64(len(all)))
	assert.GreaterOrEqual(t, accounted, uint64(len(all)-ctxErrs), "every call is sent, rejected or cancelled")
	t.Logf("%d calls: %d sent in %d batches (fill %.0f%%), %d rejected, %d cancelled, %d ctx errors, %d groups evicted",
		len(all), s.Items, s.Batches, 100*s.MeanFill, s.Rejected, s.Cancelled, ctxErrs, s.EvictedGroups)
	assert.Positive(t, s.Rejected, "the cap was exercised")
	assert.Positive(t, s.Cancelled, "cancels before dispatch were exercised")
	assert.Positive(t, s.FlushErrors, "batch errors were exercised")
}

// stressWorker calls Do until next passes ops: random group, a random deadline
// on one call in five, one or two more items through Start on one call in
// four, a random back-off after a rejection.
func stressWorker(b *batcher.Batcher[int, item, int], next *atomic.Int64, ops int64, w int) []outcome {
	var outs []outcome
	rng := rand.New(rand.NewPCG(uint64(w), 1))
	for {
		n := next.Add(1)
		if n > ops {
			return outs
		}
		it := item{ID: int(n), Group: rng.IntN(50)}
		ctx, cancel := context.Background(), context.CancelFunc(func() {})
		if rng.IntN(5) == 0 {
			ctx, cancel = context.WithTimeout(ctx, time.Duration(rng.IntN(400))*time.Microsecond)
		}
		// One call in four also puts one or two items into other groups with
		// Start, as a multi-shard command does, and waits for them after Do.
		var fan []batcher.Pending[int, item, int]
		var fanIDs []int
		if rng.IntN(4) == 0 {
			for range 1 + rng.IntN(2) {
				if n = next.Add(1); n > ops {
					break
				}
				o := item{ID: int(n), Group: rng.IntN(50)}
				fan = append(fan, b.Start(ctx, o.Group, o))
				fanIDs = append(fanIDs, o.ID)
			}
		}
		v, err := b.Do(ctx, it.Group, it)
		outs = append(outs, outcome{ID: it.ID, Resp: v, Err: err})
		for i, p := range fan {
			fv, ferr := p.Wait()
			outs = append(outs, outcome{ID: fanIDs[i], Resp: fv, Err: ferr})
			err = cmp.Or(err, ferr)
		}
		cancel()
		if errors.Is(err, batcher.ErrOverloaded) {
			// Back off like a real client; without it rejected workers spin
			// through all the ops while a few batches are in flight.
			<-time.After(time.Duration(rng.IntN(1000)) * time.Microsecond)
		}
	}
}

// tally counts the ErrOverloaded and context outcomes, and the items the
// backend received.
func tally(r *recorder, outs []outcome) (overloaded, ctxErrs, sent int) {
	for _, o := range outs {
		switch {
		case errors.Is(o.Err, batcher.ErrOverloaded):
			overloaded++
		case errors.Is(o.Err, context.Canceled), errors.Is(o.Err, context.DeadlineExceeded):
			ctxErrs++
		}
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, n := range r.seen {
		sent += n
	}
	return overloaded, ctxErrs, sent
}
