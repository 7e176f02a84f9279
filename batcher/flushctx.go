package batcher

import (
	"context"
	"sync"
	"time"
)

// flushCtx is the context of one flush: no values, no cancellation, a
// deadline FlushTimeout after dispatch. It is one small allocation per flush,
// never reused (a flush may keep its context: a context derived from it
// watches it from a goroutine that can outlive the flush), and its Done
// channel is shared by every flush whose deadline falls in the same
// millisecond (one timer per millisecond of deadlines in use, not one per
// flush): context.WithTimeout cost four allocations and a timer per batch,
// which natural batching, with its many small batches, paid per request.
//
// Done closes when the deadline, rounded up to a whole millisecond since New,
// has passed, or when Close has waited out every flush, whichever is first
// (closeDeadlines: a kept context must not hold a timer past Close); Err
// returns DeadlineExceeded from then on (never before Done is closed);
// Deadline is exact.
type flushCtx struct {
	deadline time.Time
	done     <-chan struct{}
}

var _ context.Context = (*flushCtx)(nil)

func (c *flushCtx) Deadline() (time.Time, bool) { return c.deadline, true }
func (c *flushCtx) Done() <-chan struct{}       { return c.done }
func (c *flushCtx) Value(any) any               { return nil }

func (c *flushCtx) Err() error {
	select {
	case <-c.done:
		return context.DeadlineExceeded
	default:
		return nil
	}
}

// deadlines hands out the shared Done channels of flush contexts.
type deadlines struct {
	mu      sync.Mutex
	buckets map[int64]*deadlineBucket // by millisecond since New
	closed  bool
}

type deadlineBucket struct {
	ch    chan struct{}
	timer *time.Timer
}

// doneAt returns the channel closed once now() reaches the millisecond of
// deadline (ns since New, rounded up). now is now() at the call.
func (b *Batcher[G, Req, Resp]) doneAt(deadline, now int64) <-chan struct{} {
	d := &b.deadlines
	ms := (deadline + int64(time.Millisecond) - 1) / int64(time.Millisecond)
	d.mu.Lock()
	defer d.mu.Unlock()
	if bk := d.buckets[ms]; bk != nil {
		return bk.ch
	}
	ch := make(chan struct{})
	if d.closed { // Close has flushed everything: nobody waits for this one
		close(ch)
		return ch
	}
	if d.buckets == nil {
		d.buckets = make(map[int64]*deadlineBucket)
	}
	bk := &deadlineBucket{ch: ch}
	bk.timer = time.AfterFunc(time.Duration(ms*int64(time.Millisecond)-now), func() {
		d.mu.Lock()
		if d.buckets[ms] == bk {
			delete(d.buckets, ms)
			close(ch)
		}
		d.mu.Unlock()
	})
	d.buckets[ms] = bk
	return ch
}

// closeDeadlines stops every deadline timer and closes its channel; it runs
// when every flush has returned (Close).
func (b *Batcher[G, Req, Resp]) closeDeadlines() {
	d := &b.deadlines
	d.mu.Lock()
	defer d.mu.Unlock()
	d.closed = true
	for ms, bk := range d.buckets {
		bk.timer.Stop()
		close(bk.ch)
		delete(d.buckets, ms)
	}
}
