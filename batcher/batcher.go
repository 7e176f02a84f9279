package batcher

import (
	"context"
	"hash/maphash"
	"sync"
	"sync/atomic"
	"time"
)

// FlushFunc sends one batch to the backend. It is called with the batch's group,
// its requests (in arrival order, without the items whose callers left before
// dispatch, and with identical items merged when [Config.Key] is set) and out, a
// slice of the same length: the flush sets out[i] to the result of reqs[i]. An
// entry left untouched gives its caller the zero Resp and a nil error.
//
// A non-nil return is a batch error: it reaches every item of the batch, whatever
// out holds. A panic, or a call to runtime.Goexit, reaches every item as a
// [*PanicError].
//
// ctx belongs to no caller: it carries no caller's values and ends when
// [Config.FlushTimeout] has passed since dispatch (its Deadline is exact; Done
// closes at the deadline rounded up to the millisecond, or to FlushTimeout/8192
// when that is longer, so that flushes share timers and a long FlushTimeout
// keeps at most about 8192 of them). A flush that ignores ctx is not
// interrupted: it keeps its in-flight slot, and Close waits for it. The flush
// must not keep reqs or out after it returns; the batcher reuses them. ctx is never reused, so a context derived
// from it may outlive the flush: it is done at its deadline, or by the time
// Close returns if that comes first (its Err is then DeadlineExceeded early), so
// that nothing watching it outlives the batcher. The flush must not call
// [Batcher.Close], which waits for every flush, this one included.
type FlushFunc[G comparable, Req, Resp any] func(ctx context.Context, group G, reqs []Req, out []Result[Resp]) error

// Result is the outcome of one request of a batch.
type Result[Resp any] struct {
	Resp Resp  // the response, if Err is nil
	Err  error // the error of this item alone
}

// Batcher groups concurrent requests by group (a tenant x shard, say) and sends
// each group's requests to the backend as one call: a batch is flushed when it
// holds [Config.MaxItems] items, when it would exceed [Config.MaxBytes], or when
// [Config.Linger] has passed since its first item, whichever comes first.
//
// A Batcher is safe for concurrent use. It starts no goroutine in New: each
// dispatched batch runs its flush on a goroutine of its own (at most
// [Config.MaxInFlight] at once) and each open batch holds one linger timer.
// [Batcher.Close] flushes what is pending and waits for all of them.
//
// A Batcher must be created with [New] and must not be copied.
type Batcher[G comparable, Req, Resp any] struct {
	flush  FlushFunc[G, Req, Resp]
	cfg    atomic.Pointer[Config[Req]] // with defaults applied
	seed   maphash.Seed
	shards []shard[G, Req, Resp]
	mask   uint64
	epoch  time.Time // origin of now()

	closed    atomic.Bool
	closeOnce sync.Once
	wg        sync.WaitGroup // linger timers armed + flush goroutines running

	inflight      atomic.Int64 // dispatched batches whose flush has not returned
	inflightItems atomic.Int64
	nextSweep     atomic.Int64 // now() at which the next lazy eviction sweep is due
	pool          sync.Pool    // of *batch, recycled by their last reference
	deadlines     deadlines    // shared Done channels of flush contexts

	c counters
}

// numShards is the number of independently locked parts of the group map.
const numShards = 64

// New returns a Batcher that sends batches to flush. It returns an error
// wrapping [ErrInvalidConfig] if flush is nil or cfg is invalid.
func New[G comparable, Req, Resp any](cfg Config[Req], flush FlushFunc[G, Req, Resp]) (*Batcher[G, Req, Resp], error) {
	if flush == nil {
		return nil, invalid("nil flush func")
	}
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	cfg = cfg.withDefaults()
	b := &Batcher[G, Req, Resp]{
		flush:  flush,
		seed:   maphash.MakeSeed(),
		shards: make([]shard[G, Req, Resp], numShards),
		mask:   numShards - 1,
		epoch:  time.Now(),
	}
	for i := range b.shards {
		b.shards[i].groups = make(map[G]*group[G, Req, Resp])
	}
	b.cfg.Store(&cfg)
	b.nextSweep.Store(cfg.sweepEvery())
	return b, nil
}

// Do adds req to the open batch of group and waits for its result.
//
// It returns at once with ctx.Err() if ctx has already ended (the item is
// never sent; counted in [Stats.Cancelled]), with [ErrOverloaded] if
// MaxInFlight batches are in the backend, and with [ErrClosed] after Close.
// If ctx ends while the batch is still open, the item is removed from the
// batch (it is never sent) and Do returns ctx.Err(). If ctx ends after the
// batch was dispatched, Do also returns ctx.Err() at once, but the item stays
// in the backend call, which runs to its end (bounded by FlushTimeout) and
// whose result for this item is dropped.
func (b *Batcher[G, Req, Resp]) Do(ctx context.Context, group G, req Req) (Resp, error) {
	cfg, bt, slot, own, err := b.add(ctx, group, req)
	if err != nil {
		var zero Resp
		return zero, err
	}
	if own {
		// This item closed its batch. Under FlushNatural, a caller that cannot
		// leave early runs the flush itself (its result is then ready): one
		// goroutine hand-off fewer per batch.
		if cfg.Policy == FlushNatural && ctx.Done() == nil {
			if b.start(bt, false) {
				b.run(bt, true)
			}
		} else {
			b.launch(bt, false)
		}
	}
	return b.wait(ctx, bt, slot)
}

// Start adds req to the open batch of group, as [Batcher.Do] does, but returns
// at once: [Pending.Wait] waits for the result. It lets one caller put
// requests into the batches of several groups (a multi-key command over
// several shards) and then wait for all of them, so that they travel at the
// same time without a goroutine per group. If req closes its batch (it is
// full, or under FlushNatural no flush of the group is in flight), that
// batch is flushed on a goroutine of its own; Do runs such a flush on the
// caller's goroutine when it can, so for n groups the cheapest order is Start
// for n-1 of them, Do for the last, then Wait for each Pending.
//
// An error that Do would return at once ([ErrClosed], [ErrOverloaded],
// ctx.Err()) is returned by Wait. ctx is also the context Wait waits with.
func (b *Batcher[G, Req, Resp]) Start(ctx context.Context, group G, req Req) Pending[G, Req, Resp] {
	_, bt, slot, own, err := b.add(ctx, group, req)
	if err != nil {
		return Pending[G, Req, Resp]{err: err}
	}
	if own {
		b.launch(bt, false)
	}
	return Pending[G, Req, Resp]{b: b, bt: bt, slot: slot, ctx: ctx}
}

// Pending is a request added by [Batcher.Start]. Call Wait exactly once: the
// batch is recycled once all its items have been waited for, so a Pending
// that is never waited for keeps its batch from the pool, and one waited for
// twice corrupts a batch in use (do not copy a Pending to wait in two places).
type Pending[G comparable, Req, Resp any] struct {
	b    *Batcher[G, Req, Resp]
	bt   *batch[G, Req, Resp]
	slot int
	ctx  context.Context // the caller's, for the one Wait
	err  error
}

// Wait blocks until the request's batch is flushed, or the context given to
// Start ends, and returns the request's outcome, as [Batcher.Do] does.
func (p Pending[G, Req, Resp]) Wait() (Resp, error) {
	var zero Resp
	switch {
	case p.err != nil:
		return zero, p.err
	case p.b == nil:
		return zero, errZeroPending
	}
	return p.b.wait(p.ctx, p.bt, p.slot)
}

// add runs Do's checks and adds req to its group's open batch, under the
// configuration it returns.
func (b *Batcher[G, Req, Resp]) add(ctx context.Context, group G, req Req) (cfg *Config[Req], bt *batch[G, Req, Resp], slot int, own bool, err error) {
	if err := ctx.Err(); err != nil {
		b.c.cancelled.Add(1) // refused for its ended context, as one that leaves its open batch
		return nil, nil, 0, false, err
	}
	if b.closed.Load() {
		return nil, nil, 0, false, ErrClosed
	}
	cfg = b.cfg.Load()
	if b.inflight.Load() >= int64(cfg.MaxInFlight) {
		b.c.rejected.Add(1)
		return nil, nil, 0, false, ErrOverloaded
	}
	size := 0
	if cfg.Size != nil {
		// A negative size would lower the batch's byte count and make room
		// for more than MaxBytes: it counts as 0.
		size = max(cfg.Size(req), 0)
	}
	bt, slot, own, err = b.enqueue(cfg, group, req, size)
	return cfg, bt, slot, own, err
}

// SetConfig validates cfg and swaps it in atomically, or returns an error
// wrapping [ErrInvalidConfig] and changes nothing. Batches already open keep
// their linger timer. Key, FlushTimeout and MaxInFlight are read when a batch
// is dispatched, so they apply to the batches already open too; every other
// setting applies from the next item on.
// SetConfig itself flushes nothing: a batch open when MaxItems drops to its
// size or below stays open until its linger ends or its next item joins it
// and closes it, so that one batch can go out larger than the new MaxItems
// (and the in-flight items exceed MaxInFlight x MaxItems) for a while. A
// lower MaxBytes differs: an item that does not fit closes the open batch
// without joining it. A switch to FlushNatural does not see the flushes
// already in flight: a batch dispatched under FlushOnLinger is not counted as
// a flush of its group (counting it would cost every batch a lock at its
// return), so until it returns the next item of its group finds no flush in
// flight and goes at once beside it, two flushes of one group (within
// MaxInFlight).
func (b *Batcher[G, Req, Resp]) SetConfig(cfg Config[Req]) error {
	if err := cfg.validate(); err != nil {
		return err
	}
	cfg = cfg.withDefaults()
	b.cfg.Store(&cfg)
	// A shorter IdleTTL brings the next lazy sweep forward; nothing moves it
	// back, or a caller setting knobs more often than every IdleTTL/2 would
	// postpone eviction for ever.
	due := b.now() + cfg.sweepEvery()
	for {
		old := b.nextSweep.Load()
		if due >= old || b.nextSweep.CompareAndSwap(old, due) {
			break
		}
	}
	return nil
}

// Config returns the configuration in use, with defaults filled in.
func (b *Batcher[G, Req, Resp]) Config() Config[Req] { return *b.cfg.Load() }

// EvictIdle removes now the entries of groups that have had nothing pending for
// IdleTTL and returns how many it removed. Eviction also happens lazily as batches
// open; EvictIdle is for callers that want memory back from a batcher that has
// gone quiet.
func (b *Batcher[G, Req, Resp]) EvictIdle() int { return b.sweep(b.now()) }

// Close stops accepting items (Do returns [ErrClosed]), flushes every open batch at
// once, and every batch closed before it but not yet dispatched, ignoring
// MaxInFlight (no item accepted before Close is answered ErrOverloaded for a
// cap that Close's own flushes took), and returns when every flush has returned and every
// goroutine and timer of the batcher is gone. It is safe to call more than once;
// every call waits. It always returns nil.
//
// Close must not be called from the flush func or from Config.Key (which runs
// as part of the flush): it would wait for the flush it runs in and never
// return, and that batch's callers would wait with it. A flush that finds the
// backend gone for good returns its error; a caller that sees it may Close.
func (b *Batcher[G, Req, Resp]) Close() error {
	b.closeOnce.Do(func() {
		b.closed.Store(true)
		var todo []*batch[G, Req, Resp]
		for i := range b.shards {
			sh := &b.shards[i]
			sh.mu.Lock()
			sh.closed = true
			for _, grp := range sh.groups {
				if bt := grp.pending; bt != nil {
					b.closeBatchLocked(b.cfg.Load(), bt)
					todo = append(todo, bt)
				}
			}
			sh.groups = nil
			sh.mu.Unlock()
		}
		for _, bt := range todo {
			b.launch(bt, true)
		}
	})
	b.wg.Wait()
	b.closeDeadlines()
	return nil
}

// Stats returns a snapshot of the counters and gauges. It takes each shard lock
// briefly to read its count of groups and pending items (it walks no group:
// its cost does not grow with the groups held).
func (b *Batcher[G, Req, Resp]) Stats() Stats {
	// finish adds a batch to Batches first, then its items, its sent and
	// deduped counts, its fill, its error and its latency. Reading them in the
	// reverse order keeps every snapshot within what the docs promise:
	// Sent + Deduped <= Items, FlushErrors <= Batches and MeanFill <= 1.
	latencySum := b.c.latencySum.Load()
	flushErrors := b.c.flushErrors.Load()
	fill := b.c.fillSum()
	deduped := b.c.deduped.Load()
	sent := b.c.sent.Load()
	items := b.c.items.Load()
	s := Stats{
		Items:           items,
		Sent:            sent,
		Deduped:         deduped,
		Batches:         b.c.batches.Load(),
		FlushErrors:     flushErrors,
		Cancelled:       b.c.cancelled.Load(),
		Rejected:        b.c.rejected.Load(),
		EvictedGroups:   b.c.evicted.Load(),
		FlushLatencySum: time.Duration(latencySum),
		FlushLatencyMax: time.Duration(b.c.latencyMax.Load()),
		InFlightBatches: int(b.inflight.Load()),
		InFlightItems:   int(b.inflightItems.Load()),
	}
	if s.Batches > 0 {
		s.MeanFill = fill / fillScale / float64(s.Batches)
	}
	for i := range b.shards {
		sh := &b.shards[i]
		sh.mu.Lock()
		s.LiveGroups += len(sh.groups)
		s.PendingItems += sh.pending
		sh.mu.Unlock()
	}
	return s
}
