package batcher_test

import (
	"context"
	"errors"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/batcher"
)

// statsBackend counts what the flush func really receives, and fails each call
// as its mode says. It counts a call as it ends (returns, panics or calls
// Goexit), as Stats does. While hold is set (under mu), calls wait for it to
// close.
type statsBackend struct {
	mode  func() error // nil: succeed
	calls atomic.Uint64
	reqs  atomic.Uint64
	fails atomic.Uint64 // calls that return an error, panic or Goexit

	mu   sync.Mutex
	hold chan struct{}
}

func (s *statsBackend) flush(ctx context.Context, g int, reqs []item, out []batcher.Result[int]) error {
	defer func() {
		s.calls.Add(1)
		s.reqs.Add(uint64(len(reqs)))
	}()
	s.mu.Lock()
	hold := s.hold
	s.mu.Unlock()
	if hold != nil {
		<-hold
	}
	for i, q := range reqs {
		out[i].Resp = 2 * q.ID
	}
	if s.mode == nil {
		return nil
	}
	s.fails.Add(1) // before mode: a panic or Goexit does not come back
	return s.mode()
}

// block makes the next calls wait until the returned func is called.
func (s *statsBackend) block() (unblock func()) {
	ch := make(chan struct{})
	s.mu.Lock()
	s.hold = ch
	s.mu.Unlock()
	return func() {
		s.mu.Lock()
		s.hold = nil
		s.mu.Unlock()
		close(ch)
	}
}

// statsHarness drives a batcher and counts the calls made and the calls that
// got ErrClosed (never counted by Stats).
type statsHarness struct {
	b      *batcher.Batcher[int, item, int]
	be     *statsBackend
	wg     sync.WaitGroup
	calls  atomic.Uint64
	closed atomic.Uint64
}

// do runs Do on a goroutine of its own, and lets it run until it blocks.
func (h *statsHarness) do(ctx context.Context, g, id int) {
	h.calls.Add(1)
	h.wg.Go(func() {
		_, err := h.b.Do(ctx, g, item{ID: id, Group: g})
		if errors.Is(err, batcher.ErrClosed) {
			h.closed.Add(1)
		}
	})
	synctest.Wait()
}

// checkIdentities asserts what holds in any quiet snapshot: every call is
// counted exactly once (as an item dispatched, cancelled, rejected, pending or
// in flight, or it got ErrClosed), and the counters agree with what the flush
// func received. keyFailed is the items of batches that a panicking
// Config.Key failed before the flush func was called.
func checkIdentities(t *testing.T, when string, h *statsHarness, keyFailed, keyFailedBatches uint64) {
	t.Helper()
	s := h.b.Stats()
	assert.Equal(t, h.calls.Load(),
		s.Items+s.Cancelled+s.Rejected+uint64(s.PendingItems)+uint64(s.InFlightItems)+h.closed.Load(),
		"%s: calls = Items + Cancelled + Rejected + PendingItems + InFlightItems + closed (%+v)", when, s)
	assert.Equal(t, h.be.reqs.Load(), s.Sent, "%s: Sent is what the flush func received", when)
	assert.Equal(t, s.Items, s.Sent+s.Deduped+keyFailed, "%s: Items = Sent + Deduped (+ items a panicking Key failed)", when)
	assert.Equal(t, h.be.calls.Load()+keyFailedBatches, s.Batches, "%s: Batches are the flush calls (and batches a panicking Key failed)", when)
	assert.Equal(t, h.be.fails.Load()+keyFailedBatches, s.FlushErrors, "%s: FlushErrors", when)
	assert.LessOrEqual(t, s.FlushErrors, s.Batches, when)
}

// TestStatsIdentities checks Stats' counters against what they are documented
// to count, on every path an item can take: flushed by size, by linger, by
// MaxBytes, on Close, by FlushNatural; cancelled before or after dispatch;
// rejected at admission or when its batch closes at the cap; in a batch whose
// flush fails, panics or calls Goexit, or whose Config.Key panics.
func TestStatsIdentities(t *testing.T) {
	type want struct {
		Items, Sent, Deduped, Batches, FlushErrors, Cancelled, Rejected uint64
	}
	size10 := func(item) int { return 10 }
	tests := []struct {
		name string
		cfg  batcher.Config[item]
		mode func() error
		// drive runs the scenario; nothing may be blocked in the backend when
		// it returns.
		drive            func(t *testing.T, h *statsHarness)
		keyFailed        uint64 // items of batches failed by a panicking Key
		keyFailedBatches uint64
		want             want // after Close
	}{
		{
			name: "flush by size",
			cfg:  batcher.Config[item]{MaxItems: 2, Linger: time.Hour},
			drive: func(t *testing.T, h *statsHarness) {
				h.do(t.Context(), 0, 1)
				h.do(t.Context(), 0, 2)
			},
			want: want{Items: 2, Sent: 2, Batches: 1},
		},
		{
			name: "flush by linger",
			cfg:  batcher.Config[item]{MaxItems: 10, Linger: time.Millisecond},
			drive: func(t *testing.T, h *statsHarness) {
				h.do(t.Context(), 0, 1)
				h.do(t.Context(), 0, 2)
				h.do(t.Context(), 0, 3)
				time.Sleep(2 * time.Millisecond)
				synctest.Wait()
			},
			want: want{Items: 3, Sent: 3, Batches: 1},
		},
		{
			name: "flush by MaxBytes",
			cfg:  batcher.Config[item]{MaxItems: 10, Linger: time.Millisecond, MaxBytes: 25, Size: size10},
			drive: func(t *testing.T, h *statsHarness) {
				h.do(t.Context(), 0, 1)
				h.do(t.Context(), 0, 2)
				h.do(t.Context(), 0, 3) // closes the batch of 1 and 2
				time.Sleep(2 * time.Millisecond)
				synctest.Wait()
			},
			want: want{Items: 3, Sent: 3, Batches: 2},
		},
		{
			name: "flush on Close",
			cfg:  batcher.Config[item]{MaxItems: 10, Linger: time.Hour},
			drive: func(t *testing.T, h *statsHarness) {
				h.do(t.Context(), 0, 1)
				h.do(t.Context(), 1, 2)
				checkIdentities(t, "pending", h, 0, 0)
				require.NoError(t, h.b.Close())
				synctest.Wait()
				h.do(t.Context(), 0, 3) // ErrClosed
			},
			want: want{Items: 2, Sent: 2, Batches: 2},
		},
		{
			name: "natural",
			cfg:  batcher.Config[item]{MaxItems: 10, Linger: time.Hour, Policy: batcher.FlushNatural},
			drive: func(t *testing.T, h *statsHarness) {
				unblock := h.be.block()
				h.do(context.Background(), 0, 1) // goes at once, inline
				h.do(t.Context(), 0, 2)          // gather behind it
				h.do(t.Context(), 0, 3)
				checkIdentities(t, "in flight", h, 0, 0)
				unblock()
				synctest.Wait()
			},
			want: want{Items: 3, Sent: 3, Batches: 2},
		},
		{
			name: "cancel before dispatch",
			cfg:  batcher.Config[item]{MaxItems: 10, Linger: time.Millisecond},
			drive: func(t *testing.T, h *statsHarness) {
				ctx, cancel := context.WithCancel(t.Context())
				h.do(ctx, 0, 1)
				h.do(t.Context(), 0, 2)
				cancel()
				synctest.Wait()
				ctx, cancel = context.WithCancel(t.Context())
				h.do(ctx, 1, 3) // alone in its batch, which is dropped
				cancel()
				time.Sleep(2 * time.Millisecond)
				synctest.Wait()
			},
			want: want{Items: 1, Sent: 1, Batches: 1, Cancelled: 2},
		},
		{
			name: "cancel after dispatch",
			cfg:  batcher.Config[item]{MaxItems: 2, Linger: time.Hour},
			drive: func(t *testing.T, h *statsHarness) {
				unblock := h.be.block()
				ctx, cancel := context.WithCancel(t.Context())
				h.do(ctx, 0, 1)
				h.do(t.Context(), 0, 2)
				cancel() // in the backend already: stays in the call
				synctest.Wait()
				checkIdentities(t, "in flight", h, 0, 0)
				unblock()
				synctest.Wait()
			},
			want: want{Items: 2, Sent: 2, Batches: 1},
		},
		{
			name: "rejected at admission and at close",
			cfg:  batcher.Config[item]{MaxItems: 2, Linger: time.Millisecond, MaxInFlight: 1},
			drive: func(t *testing.T, h *statsHarness) {
				h.do(t.Context(), 1, 1) // waits for its linger
				unblock := h.be.block()
				h.do(t.Context(), 0, 2)
				h.do(t.Context(), 0, 3) // full: in the backend, at the cap
				h.do(t.Context(), 2, 4) // rejected at admission
				time.Sleep(2 * time.Millisecond)
				synctest.Wait() // the batch of 1 closed at the cap: rejected
				checkIdentities(t, "at the cap", h, 0, 0)
				unblock()
				synctest.Wait()
			},
			want: want{Items: 2, Sent: 2, Batches: 1, Rejected: 2},
		},
		{
			name: "de-duplicated",
			cfg: batcher.Config[item]{MaxItems: 3, Linger: time.Hour,
				Key: func(it item) (string, bool) { return string(rune('a' + it.ID%2)), true }},
			drive: func(t *testing.T, h *statsHarness) {
				h.do(t.Context(), 0, 1)
				h.do(t.Context(), 0, 2)
				h.do(t.Context(), 0, 3)
			},
			want: want{Items: 3, Sent: 2, Deduped: 1, Batches: 1},
		},
		{
			name: "flush fails",
			cfg:  batcher.Config[item]{MaxItems: 2, Linger: time.Hour},
			mode: func() error { return errBatch },
			drive: func(t *testing.T, h *statsHarness) {
				h.do(t.Context(), 0, 1)
				h.do(t.Context(), 0, 2)
			},
			want: want{Items: 2, Sent: 2, Batches: 1, FlushErrors: 1},
		},
		{
			name: "flush panics",
			cfg:  batcher.Config[item]{MaxItems: 2, Linger: time.Hour},
			mode: func() error { panic("boom") },
			drive: func(t *testing.T, h *statsHarness) {
				h.do(t.Context(), 0, 1)
				h.do(t.Context(), 0, 2)
			},
			want: want{Items: 2, Sent: 2, Batches: 1, FlushErrors: 1},
		},
		{
			name: "flush calls Goexit",
			cfg:  batcher.Config[item]{MaxItems: 2, Linger: time.Hour},
			mode: func() error { runtime.Goexit(); return nil },
			drive: func(t *testing.T, h *statsHarness) {
				h.do(t.Context(), 0, 1)
				h.do(t.Context(), 0, 2)
			},
			want: want{Items: 2, Sent: 2, Batches: 1, FlushErrors: 1},
		},
		{
			name: "Key panics",
			cfg:  batcher.Config[item]{MaxItems: 2, Linger: time.Hour, Key: panickyKey},
			drive: func(t *testing.T, h *statsHarness) {
				h.do(t.Context(), 0, 1)
				h.do(t.Context(), 0, 2)
			},
			keyFailed: 2, keyFailedBatches: 1,
			// Nothing reaches the flush func: nothing is sent.
			want: want{Items: 2, Sent: 0, Batches: 1, FlushErrors: 1},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				be := &statsBackend{mode: tt.mode}
				b, err := batcher.New(tt.cfg, be.flush)
				require.NoError(t, err)
				h := &statsHarness{b: b, be: be}
				tt.drive(t, h)
				checkIdentities(t, "after the scenario", h, tt.keyFailed, tt.keyFailedBatches)
				require.NoError(t, b.Close())
				h.wg.Wait()
				checkIdentities(t, "after Close", h, tt.keyFailed, tt.keyFailedBatches)
				s := b.Stats()
				assert.Equal(t, tt.want, want{
					Items: s.Items, Sent: s.Sent, Deduped: s.Deduped, Batches: s.Batches,
					FlushErrors: s.FlushErrors, Cancelled: s.Cancelled, Rejected: s.Rejected,
				})
				assert.Zero(t, s.PendingItems)
				assert.Zero(t, s.InFlightItems)
				assert.Zero(t, s.InFlightBatches)
			})
		})
	}
}
