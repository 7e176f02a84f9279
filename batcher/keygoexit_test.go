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

// TestKeyGoexitFailsBatch: a Config.Key that calls runtime.Goexit (t.FailNow
// in a test's Key does) fails its batch as a *PanicError for every item, as a
// panicking Key does. The flush's completion was deferred only after Key had
// run, so the Goexit skipped it: the batch's callers waited forever, its
// in-flight slot was never given back, and Close never returned. The stats
// count nothing of the batch as sent or de-duplicated.
func TestKeyGoexitFailsBatch(t *testing.T) {
	goexitKey := func(it item) (string, bool) {
		if it.ID == 2 {
			runtime.Goexit()
		}
		return "", false
	}
	tests := []struct {
		name  string
		cfg   batcher.Config[item]
		delay time.Duration
	}{
		// The third item closes the batch; its flush runs on a goroutine.
		{"full batch", batcher.Config[item]{MaxItems: 3, Linger: time.Hour, Key: goexitKey}, 0},
		// Item 1 goes alone and its flush takes a millisecond; items 2 and 3
		// gather meanwhile, and item 3, which fills the batch and whose
		// context has no Done, runs its flush on its own goroutine, which the
		// Goexit ends.
		{"natural inline", batcher.Config[item]{MaxItems: 2, Linger: time.Hour, Policy: batcher.FlushNatural, Key: goexitKey}, time.Millisecond},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				r := newRecorder()
				r.delay.Store(int64(tt.delay))
				b := newBatcher(t, tt.cfg, r)
				var wg sync.WaitGroup
				errs := make([]error, 3)
				for i := range 3 {
					errs[i] = errNotReturned
					wg.Go(func() { _, errs[i] = b.Do(context.Background(), 0, item{ID: i + 1}) })
					synctest.Wait() // in ID order
				}
				wg.Wait()
				require.NoError(t, b.Close(), "Close returns: no flush is left unfinished")
				natural := tt.cfg.Policy == batcher.FlushNatural
				for i, err := range errs {
					switch {
					case natural && i == 0:
						require.NoError(t, err, "item 1 went alone")
					case natural && i == 2:
						require.ErrorIs(t, err, errNotReturned, "Goexit ended the caller that ran the flush")
					default:
						var pe *batcher.PanicError
						require.ErrorAs(t, err, &pe, "item %d", i+1)
					}
				}
				s := b.Stats()
				sentItems := uint64(0)
				for _, sb := range r.snapshot() {
					assert.NotContains(t, sb.IDs, 2, "a batch whose Key exited is not sent")
					sentItems += uint64(len(sb.IDs))
				}
				assert.EqualValues(t, 3, s.Items)
				assert.Equal(t, sentItems, s.Sent, "nothing of the failed batch was sent")
				assert.Zero(t, s.Deduped, "no item shared another's result")
				assert.EqualValues(t, 1+len(r.snapshot()), s.Batches)
				assert.EqualValues(t, 1, s.FlushErrors)
				assert.Zero(t, s.InFlightBatches, "the failed batch holds no in-flight slot")
			})
		})
	}
}

var errNotReturned = errors.New("test: Do did not return")
