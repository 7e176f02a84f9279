package batcher_test

import (
	"context"
	"errors"
	"strconv"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/batcher"
)

// FuzzBatcher drives a batcher with an arbitrary schedule of arrivals, groups,
// cancels, backend latency, flush errors, knobs and flush policy, in virtual
// time (every other item through Start and Wait instead of Do), and checks
// that no item is lost (every Do returns; the bubble would deadlock otherwise) or
// duplicated, that each caller gets its own answer (or, de-duplicated with
// its pair by Config.Key, the pair's), and that the stats add up.
func FuzzBatcher(f *testing.F) {
	f.Add([]byte{3, 1, 1, 0, 0x10, 0x21, 0x32, 0x03, 0x14, 0x25})
	f.Add([]byte{0x87, 0, 0, 3, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12})
	f.Add([]byte{0, 3, 2, 2, 0xff, 0xfe, 0xfd, 0xfc, 0x00, 0x40, 0x80, 0xc0})
	f.Add([]byte{7, 2, 0, 1, 0x11, 0x11, 0x11, 0x11, 0x22, 0x22, 0x22, 0x22, 0x33})
	f.Add([]byte{3, 1, 0x81, 2, 0x10, 0x21, 0x32, 0x03, 0x14, 0x25, 0x00, 0x01})
	f.Add([]byte{7, 3, 0x82, 1, 0xc0, 0x01, 0x12, 0xc1, 0x02, 0xd3, 0x10, 0xc4, 0x15})
	f.Add([]byte{7, 3, 2, 0, 0xc0, 0x01, 0x12, 0xc1, 0x02, 0xd3, 0x10, 0xc4, 0x15, 0xe6, 0x07})
	f.Add([]byte{0x87, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 3, 3, 3, 3})
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) < 5 {
			return
		}
		synctest.Test(t, func(t *testing.T) { fuzzRun(t, data) })
	})
}

func fuzzRun(t *testing.T, data []byte) {
	cfg := batcher.Config[item]{
		MaxItems:     1 + int(data[0]%8),
		Linger:       time.Duration(1+data[1]%4) * time.Millisecond,
		MaxInFlight:  1 + int(data[2]%3),
		FlushTimeout: 2 * time.Millisecond,
		IdleTTL:      time.Millisecond,
	}
	if data[2]&0x80 != 0 {
		cfg.Policy = batcher.FlushNatural
	}
	if data[0]&0x80 != 0 {
		cfg.Key = pairKey
	}
	r := newRecorder()
	r.delay.Store(int64(time.Duration(data[3]%4) * time.Millisecond))
	r.failBatch = func(ids []int) bool { return ids[0]%5 == 0 }
	r.failItem = func(id int) bool { return id%3 == 0 }
	b, err := batcher.New(cfg, r.flush)
	require.NoError(t, err)

	ops := data[4:]
	if len(ops) > 64 {
		ops = ops[:64]
	}
	outs := make([]outcome, len(ops))
	var wg sync.WaitGroup
	sized, maxItems := false, cfg.MaxItems
	for i, x := range ops {
		time.Sleep(time.Duration((x>>2)%4) * 500 * time.Microsecond) // arrival gap
		// An operator toggles the byte limit and de-duplication, and moves MaxItems.
		if x>>6 == 3 {
			next := cfg
			if sized = !sized; sized {
				next.Size = func(it item) int { return 1 + it.ID%4 }
				next.MaxBytes = 6
				next.Key = nil
			} else if next.Key == nil {
				next.Key = pairKey
			}
			next.MaxItems = 1 + int(x%5)
			maxItems = max(maxItems, next.MaxItems)
			require.NoError(t, b.SetConfig(next))
		}
		it := item{ID: i, Group: int(x % 3)}
		ctx, cancel := t.Context(), context.CancelFunc(func() {})
		switch (x >> 4) % 4 {
		case 1:
			ctx, cancel = context.WithTimeout(ctx, time.Millisecond)
		case 2:
			ctx, cancel = context.WithTimeout(ctx, 3*time.Millisecond)
		}
		wg.Go(func() {
			defer cancel()
			var v int
			var err error
			if i%2 == 1 { // every other item through Start and Wait
				v, err = b.Start(ctx, it.Group, it).Wait()
			} else {
				v, err = b.Do(ctx, it.Group, it)
			}
			outs[i] = outcome{ID: it.ID, Resp: v, Err: err}
		})
	}
	wg.Wait()
	require.NoError(t, b.Close())
	merged := unmerge(r, ops, outs)
	require.Empty(t, checkOutcomes(r, outs))

	s := b.Stats()
	overloaded, ctxErrs, sent := tally(r, outs)
	assert.Equal(t, uint64(sent), s.Sent)
	assert.Equal(t, s.Sent+s.Deduped, s.Items, "every item dispatched was sent or shared a result")
	// A merged item whose caller left after dispatch is de-duplicated but
	// returned ctx.Err(), so it was not rewritten.
	assert.GreaterOrEqual(t, s.Deduped, uint64(merged))
	assert.LessOrEqual(t, s.Deduped, uint64(merged+ctxErrs))
	assert.Equal(t, uint64(len(r.snapshot())), s.Batches)
	assert.GreaterOrEqual(t, s.Rejected, uint64(overloaded))
	assert.LessOrEqual(t, s.Rejected, uint64(overloaded+ctxErrs))
	assert.Equal(t, uint64(len(outs)), s.Items+s.Rejected+s.Cancelled, "every call sent, rejected or cancelled")
	assert.LessOrEqual(t, r.maxInFlight.Load(), int64(cfg.MaxInFlight*maxItems), "in-flight items bounded")
	assert.Zero(t, s.InFlightBatches+s.InFlightItems+s.PendingItems)
}

// pairKey is the fuzz's de-duplication key: items 2k and 2k+1 are identical
// (when they share a group and a batch), except that an item whose id is 3
// mod 4 is never merged.
func pairKey(it item) (string, bool) { return strconv.Itoa(it.ID / 2), it.ID%4 != 3 }

// unmerge rewrites the outcome of each item that shared its pair's result
// (pairKey: never sent itself, its pair of the same group sent) to its pair's
// id, so that checkOutcomes holds it to the answer the backend gave the pair,
// and returns how many it rewrote. An item that got an answer without being
// sent or merged stays as it is, and checkOutcomes flags it.
func unmerge(r *recorder, ops []byte, outs []outcome) (merged int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for i, o := range outs {
		p := o.ID ^ 1
		switch {
		case r.seen[o.ID] != 0, p >= len(outs), r.seen[p] == 0,
			o.ID%4 == 3, p%4 == 3, ops[o.ID]%3 != ops[p]%3:
			continue
		case o.Err == nil, errors.Is(o.Err, errItem), errors.Is(o.Err, errBatch):
			outs[i].ID = p
			merged++
		}
	}
	return merged
}
