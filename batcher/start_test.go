package batcher_test

import (
	"context"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/batcher"
)

// TestStartAcrossGroups: one caller puts items into three groups (Start, Start,
// Do) and waits for all: the three 5 ms flushes run at the same time, so the
// call takes 5 ms, not 15, under either policy.
func TestStartAcrossGroups(t *testing.T) {
	tests := []struct {
		policy batcher.FlushPolicy
		want   time.Duration
	}{
		{batcher.FlushNatural, 5 * time.Millisecond},
		{batcher.FlushOnLinger, 6 * time.Millisecond}, // + the 1 ms linger
	}
	for _, tt := range tests {
		t.Run(tt.policy.String(), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				r := newRecorder()
				r.delay.Store(int64(5 * time.Millisecond))
				b := newBatcher(t, batcher.Config[item]{MaxItems: 8, Linger: time.Millisecond, Policy: tt.policy}, r)
				defer b.Close()
				ctx := context.Background()
				start := time.Now()
				p1 := b.Start(ctx, 1, item{1, 1})
				p2 := b.Start(ctx, 2, item{2, 2})
				v3, err := b.Do(ctx, 3, item{3, 3})
				require.NoError(t, err)
				v1, err1 := p1.Wait()
				v2, err2 := p2.Wait()
				require.NoError(t, err1)
				require.NoError(t, err2)
				assert.Equal(t, []int{2, 4, 6}, []int{v1, v2, v3})
				assert.Equal(t, tt.want, time.Since(start))
				assert.Len(t, r.snapshot(), 3)
				s := b.Stats()
				assert.Equal(t, uint64(3), s.Items)
				assert.Equal(t, 0, s.InFlightBatches)
			})
		})
	}
}

// TestStartGathersWhileInFlight: under FlushNatural an item started while its
// group's flush is in flight joins the next batch, with the items Do adds.
func TestStartGathersWhileInFlight(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRecorder()
		r.delay.Store(int64(5 * time.Millisecond))
		b := newBatcher(t, batcher.Config[item]{MaxItems: 8, Linger: time.Second, Policy: batcher.FlushNatural}, r)
		defer b.Close()
		ctx := context.Background()
		first := make(chan outcome)
		go func() {
			v, err := b.Do(ctx, 1, item{0, 1})
			first <- outcome{0, v, err}
		}()
		time.Sleep(time.Millisecond) // virtual time: the first flush is in flight
		p := b.Start(ctx, 1, item{1, 1})
		outs := doAll(ctx, b, []item{{2, 1}}, []time.Duration{0})
		v, err := p.Wait()
		outs = append(outs, <-first, outcome{1, v, err})
		require.Empty(t, checkOutcomes(r, outs))
		sent := r.snapshot()
		require.Len(t, sent, 2)
		assert.Equal(t, []int{0}, sent[0].IDs)
		assert.ElementsMatch(t, []int{1, 2}, sent[1].IDs)
	})
}

// TestStartErrors: what Do would refuse at once, Start hands to Wait; a
// cancel while the batch is open removes the item, which is never sent.
func TestStartErrors(t *testing.T) {
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	tests := []struct {
		name    string
		prepare func(t *testing.T, b *batcher.Batcher[int, item, int])
		ctx     context.Context
		want    error
	}{
		{"closed", func(t *testing.T, b *batcher.Batcher[int, item, int]) { require.NoError(t, b.Close()) }, context.Background(), batcher.ErrClosed},
		{"context done", func(*testing.T, *batcher.Batcher[int, item, int]) {}, cancelled, context.Canceled},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := newRecorder()
			b := newBatcher(t, batcher.Config[item]{MaxItems: 1}, r)
			defer b.Close()
			tt.prepare(t, b)
			_, err := b.Start(tt.ctx, 1, item{1, 1}).Wait()
			require.ErrorIs(t, err, tt.want)
			assert.Empty(t, r.snapshot(), "nothing sent")
		})
	}
	t.Run("zero Pending", func(t *testing.T) {
		var p batcher.Pending[int, item, int]
		_, err := p.Wait()
		require.Error(t, err)
	})
	t.Run("cancel while open", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			r := newRecorder()
			b := newBatcher(t, batcher.Config[item]{MaxItems: 8, Linger: 10 * time.Millisecond}, r)
			defer b.Close()
			ctx, cancel := context.WithCancel(context.Background())
			p := b.Start(ctx, 1, item{1, 1})
			time.Sleep(time.Millisecond)
			cancel()
			_, err := p.Wait()
			require.ErrorIs(t, err, context.Canceled)
			time.Sleep(20 * time.Millisecond) // past the linger
			assert.Empty(t, r.snapshot(), "the item left before dispatch and the empty batch was dropped")
		})
	})
}

// TestStartOverloaded: with the in-flight cap reached, Start's item is refused
// at once and never sent.
func TestStartOverloaded(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRecorder()
		r.delay.Store(int64(10 * time.Millisecond))
		b := newBatcher(t, batcher.Config[item]{MaxItems: 1, MaxInFlight: 1}, r)
		defer b.Close()
		ctx := context.Background()
		busy := b.Start(ctx, 1, item{1, 1}) // full at once: in flight on its own goroutine
		synctest.Wait()
		_, err := b.Start(ctx, 2, item{2, 2}).Wait()
		require.ErrorIs(t, err, batcher.ErrOverloaded)
		v, err := busy.Wait()
		require.NoError(t, err)
		assert.Equal(t, 2, v)
		require.Len(t, r.snapshot(), 1)
	})
}
