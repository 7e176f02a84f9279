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

// TestStressCloseUnderLoad closes a batcher while workers keep calling Do
// and Start (cancellable contexts and not, so that FlushNatural runs some
// flushes on the callers' goroutines) until they are refused, and checks
// that Close returns only once every flush has returned (no flush starts or
// runs after it), that every item is answered once, sent at most once, and
// never refused after being sent, and that the stats add up with nothing left
// pending or in flight.
func TestStressCloseUnderLoad(t *testing.T) {
	for _, policy := range []batcher.FlushPolicy{batcher.FlushOnLinger, batcher.FlushNatural} {
		t.Run(policy.String(), func(t *testing.T) {
			for seed := range uint64(2) {
				stressClose(t, policy, seed)
			}
		})
	}
}

func stressClose(t *testing.T, policy batcher.FlushPolicy, seed uint64) {
	leak.Check(t)
	const workers = 16
	r := newRecorder()
	r.failItem = func(id int) bool { return id%11 == 0 }
	var closed atomic.Bool // Close has returned
	var late atomic.Int64  // flushes that ran after Close returned
	var flushes atomic.Int64
	busy := make(chan struct{})
	flush := func(ctx context.Context, g int, reqs []item, out []batcher.Result[int]) error {
		if flushes.Add(1) == 100 {
			close(busy)
		}
		err := r.flush(ctx, g, reqs, out)
		if closed.Load() {
			late.Add(1)
		}
		return err
	}
	b, err := batcher.New(batcher.Config[item]{MaxItems: 4, Linger: 100 * time.Microsecond, MaxInFlight: 6, Policy: policy}, flush)
	require.NoError(t, err)

	var next atomic.Int64
	outs := make([][]outcome, workers)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			rng := rand.New(rand.NewPCG(seed, uint64(w)))
			for {
				ctx, cancel := context.Background(), context.CancelFunc(func() {})
				if rng.IntN(2) == 0 {
					ctx, cancel = context.WithCancel(ctx)
				}
				it := item{ID: int(next.Add(1)), Group: rng.IntN(8)}
				var p batcher.Pending[int, item, int]
				var pid int
				if rng.IntN(3) == 0 {
					pid = int(next.Add(1))
					g := rng.IntN(8)
					p = b.Start(ctx, g, item{ID: pid, Group: g})
				}
				v, err := b.Do(ctx, it.Group, it)
				outs[w] = append(outs[w], outcome{ID: it.ID, Resp: v, Err: err})
				if pid != 0 {
					pv, perr := p.Wait()
					outs[w] = append(outs[w], outcome{ID: pid, Resp: pv, Err: perr})
					err = errors.Join(err, perr)
				}
				cancel()
				if errors.Is(err, batcher.ErrClosed) {
					return
				}
			}
		})
	}
	<-busy
	require.NoError(t, b.Close())
	closed.Store(true)
	wg.Wait()

	var all []outcome
	for _, o := range outs {
		all = append(all, o...)
	}
	assert.Zero(t, late.Load(), "flushes after Close returned")
	s := b.Stats()
	assert.Zero(t, s.InFlightBatches)
	assert.Zero(t, s.InFlightItems)
	assert.Zero(t, s.PendingItems)
	_, _, sent := tally(r, all)
	assert.Equal(t, uint64(sent), s.Items)
	var answered, refused int
	for _, o := range all {
		switch {
		case errors.Is(o.Err, batcher.ErrClosed):
			refused++
		case o.Err == nil || errors.Is(o.Err, errItem):
			answered++
		}
	}
	assert.Positive(t, refused)
	assert.Positive(t, answered)
	assert.Empty(t, checkOutcomes(r, all))
}
