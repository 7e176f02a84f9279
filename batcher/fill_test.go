package batcher_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/batcher"
)

// TestFillVersusLoad: open-loop arrivals into one group at a fraction of
// MaxItems/linger. Below it, batches close on the linger and fill in proportion
// to the load; once the load exceeds MaxItems/linger, they close on MaxItems and
// are at least 95% full.
func TestFillVersusLoad(t *testing.T) {
	const (
		maxItems = 32
		linger   = 2 * time.Millisecond
		items    = 3200
	)
	tests := []struct {
		give    float64 // offered load / (MaxItems/linger)
		wantMin float64
		wantMax float64
	}{
		{give: 0.25, wantMin: 0.20, wantMax: 0.30},
		{give: 0.5, wantMin: 0.45, wantMax: 0.55},
		{give: 1.25, wantMin: 0.95, wantMax: 1},
		{give: 2, wantMin: 0.95, wantMax: 1},
		{give: 8, wantMin: 0.95, wantMax: 1},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("load=%.2fx", tt.give), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				b, err := batcher.New(batcher.Config[int]{MaxItems: maxItems, Linger: linger},
					func(_ context.Context, _ int, reqs []int, out []batcher.Result[int]) error { return nil })
				require.NoError(t, err)
				defer b.Close()
				gap := time.Duration(float64(linger) / maxItems / tt.give)
				var wg sync.WaitGroup
				for i := range items {
					wg.Go(func() { _, _ = b.Do(context.Background(), 0, i) })
					time.Sleep(gap)
				}
				wg.Wait()
				s := b.Stats()
				assert.Equal(t, uint64(items), s.Items)
				assert.GreaterOrEqual(t, s.MeanFill, tt.wantMin)
				assert.LessOrEqual(t, s.MeanFill, tt.wantMax)
				t.Logf("load %.2fx MaxItems/linger: %d batches, mean fill %.1f%%", tt.give, s.Batches, 100*s.MeanFill)
			})
		})
	}
}
