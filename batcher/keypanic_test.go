package batcher_test

import (
	"context"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/batcher"
)

// panickyKey panics on the item with ID 2 and merges nothing.
func panickyKey(it item) (string, bool) {
	if it.ID == 2 {
		panic("bad key")
	}
	return "", false
}

// TestKeyPanicFailsBatch: a Config.Key that panics fails its batch as a
// *PanicError for every item, sends nothing, and leaves the batcher working.
// Before, the panic escaped the flush goroutine and ended the process.
func TestKeyPanicFailsBatch(t *testing.T) {
	tests := []struct {
		name string
		cfg  batcher.Config[item]
	}{
		// The third item closes the batch; its flush runs on a goroutine.
		{"full batch", batcher.Config[item]{MaxItems: 3, Linger: time.Hour, Key: panickyKey}},
		// Item 1 goes at once and its flush takes a millisecond; items 2 and 3
		// gather meanwhile and go when it returns, on its goroutine.
		{"natural batch", batcher.Config[item]{MaxItems: 3, Linger: time.Hour, Policy: batcher.FlushNatural, Key: panickyKey}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				r := newRecorder()
				r.delay.Store(int64(time.Millisecond))
				b := newBatcher(t, tt.cfg, r)
				var wg sync.WaitGroup
				errs := make([]error, 3)
				for i := range 3 {
					wg.Add(1)
					go func() {
						defer wg.Done()
						_, errs[i] = b.Do(context.Background(), 0, item{ID: i + 1})
					}()
					synctest.Wait() // in ID order
				}
				wg.Wait()
				failed := 0
				for i, err := range errs {
					var pe *batcher.PanicError
					if tt.cfg.Policy == batcher.FlushNatural && i == 0 {
						require.NoError(t, err, "item 1 went alone, before the others")
						continue
					}
					require.ErrorAs(t, err, &pe, "item %d", i+1)
					assert.Equal(t, "bad key", pe.Value)
					failed++
				}
				assert.Equal(t, 3-len(r.snapshot()), failed, "every item of the panicking batch failed")
				for _, sb := range r.snapshot() {
					assert.NotContains(t, sb.IDs, 2, "a batch whose keys panicked is not sent")
				}
				assert.EqualValues(t, 1, b.Stats().FlushErrors)

				// The batcher goes on: a batch whose keys do not panic is sent.
				p := b.Start(context.Background(), 0, item{ID: 7})
				require.NoError(t, b.Close()) // flushes the open batch
				got, err := p.Wait()
				require.NoError(t, err)
				assert.Equal(t, 14, got)
			})
		})
	}
}
