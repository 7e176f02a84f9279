package batcher

import (
	"context"
	"math"
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
// A channel lives until its deadline, whether or not its flushes have
// returned, so with a FlushTimeout longer than deadlineSlots milliseconds the
// width of a bucket is FlushTimeout/deadlineSlots instead: at most about
// deadlineSlots buckets, whatever the timeout (one per millisecond of an hour
// was 3.6 million, over a gigabyte).
//
// Done closes when the deadline, rounded up to a whole bucket (a millisecond,
// or FlushTimeout/deadlineSlots) since New, has passed, or when Close has
// waited out every flush, whichever is first
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
	mu      sync.Mutex                // protects buckets and closed
	buckets map[int64]*deadlineBucket // by the time it closes, ns since New
	closed  bool
}

// deadlineSlots bounds the deadline buckets alive at once: a bucket is a
// millisecond wide, or FlushTimeout/deadlineSlots when that is longer.
const deadlineSlots = 8192

type deadlineBucket struct {
	ch    chan struct{}
	timer *time.Timer
}

// doneAt returns the channel closed once now() reaches deadline (ns since
// New) rounded up to its bucket, whose width is a millisecond or timeout
// (FlushTimeout) over deadlineSlots, whichever is longer.
func (b *Batcher[G, Req, Resp]) doneAt(deadline int64, timeout time.Duration) <-chan struct{} {
	d := &b.deadlines
	width := max(int64(time.Millisecond), int64(timeout)/deadlineSlots)
	at := deadline - deadline%width
	if at < deadline {
		if at > math.MaxInt64-width { // a deadline at the end of time
			at = math.MaxInt64
		} else {
			at += width
		}
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if bk := d.buckets[at]; bk != nil {
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
	// Read now, not at dispatch: the time since (Config.Key, a busy
	// machine) would otherwise be added to when the bucket closes. A bucket
	// already due closes at once.
	bk.timer = time.AfterFunc(time.Duration(at-b.now()), func() {
		d.mu.Lock()
		if d.buckets[at] == bk {
			delete(d.buckets, at)
			close(ch)
		}
		d.mu.Unlock()
	})
	d.buckets[at] = bk
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
