package batcher

import (
	"context"
	"hash/maphash"
	"math"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tierkit/tierkit/internal/mapshrink"
)

// shard is one independently locked part of the group map.
type shard[G comparable, Req, Resp any] struct {
	mu sync.Mutex
	// mu protects the fields below, every group in groups, and every open batch of
	// those groups.
	groups map[G]*group[G, Req, Resp]
	peak   int  // largest len(groups) since the map was last rebuilt
	closed bool // set by Close: no more items
	// pending is the live items of the open batches of groups, kept as
	// they join and leave so that Stats does not walk every group.
	pending int
	_       [64]byte
}

// group is the entry of one group: at most one open batch.
type group[G comparable, Req, Resp any] struct {
	pending   *batch[G, Req, Resp] // the open batch, nil when nothing is pending
	idleSince int64                // now() when pending last became nil
	flushing  int                  // counted batches dispatched whose flush has not returned
}

// batch is one batch, open (its group's pending batch) then dispatched.
//
// While open, every field but res, err and done is guarded by sh.mu. Once
// dispatched (pending no longer points to it) it belongs to the flush goroutine,
// which writes res and err and then closes done; waiters read them after done.
type batch[G comparable, Req, Resp any] struct {
	sh  *shard[G, Req, Resp]
	grp *group[G, Req, Resp]
	key G

	reqs       []Req  // one slot per item, in arrival order
	sizes      []int  // per slot while Config.Size is set (a prefix of reqs' length)
	gone       []bool // per slot: the caller left before dispatch; grows lazily
	live       int    // slots whose caller is still there
	dispatched bool   // closed and handed to launch (false for a dropped batch)
	armed      bool   // the linger timer was armed for this batch
	counted    bool   // counted in grp.flushing until its flush returns (FlushNatural)
	bytes      int    // sum of the sizes of live slots
	timer      *time.Timer

	res  []Result[Resp] // per slot
	err  error          // batch error: overrides res
	done chan struct{}

	// refs counts the holders of a dispatched batch: the flush goroutine (or the
	// rejection) and each waiter still there. The last one recycles the batch.
	refs atomic.Int32
}

// maxPooledSlots is the largest slab kept for reuse.
const maxPooledSlots = 4096

// now returns the monotonic time since New, in nanoseconds.
func (b *Batcher[G, Req, Resp]) now() int64 { return int64(time.Since(b.epoch)) }

func (b *Batcher[G, Req, Resp]) shardFor(g G) *shard[G, Req, Resp] {
	return &b.shards[maphash.Comparable(b.seed, g)&b.mask]
}

// enqueue adds req to the open batch of g (opening one if needed) and returns the
// batch and the item's slot. A batch closed to make room for req (MaxBytes) is
// dispatched before it returns; if req's own batch is closed by req (full, or
// FlushNatural with no flush of the group in flight), own is true and the caller
// must dispatch it.
func (b *Batcher[G, Req, Resp]) enqueue(cfg *Config[Req], g G, req Req, size int) (bt *batch[G, Req, Resp], slot int, own bool, err error) {
	sh := b.shardFor(g)
	sh.mu.Lock()
	if sh.closed {
		sh.mu.Unlock()
		return nil, 0, false, ErrClosed
	}
	grp := sh.groups[g]
	if grp == nil {
		grp = &group[G, Req, Resp]{}
		sh.groups[g] = grp
		sh.peak = max(sh.peak, len(sh.groups))
	}
	var before *batch[G, Req, Resp] // closed to make room for req (MaxBytes)
	bt = grp.pending
	if bt != nil && cfg.MaxBytes > 0 && size > cfg.MaxBytes-bt.bytes { // not bt.bytes+size: it overflows for a huge item
		b.closeBatchLocked(cfg, bt)
		before, bt = bt, nil
	}
	sweepAt, due := int64(-1), int64(0)
	if bt == nil {
		bt = b.openLocked(cfg, sh, grp, g, armLinger(cfg.Policy, grp.flushing))
		if now, d := b.now(), b.nextSweep.Load(); now >= d {
			sweepAt, due = now, d
		}
	}
	slot = len(bt.reqs)
	bt.reqs = append(bt.reqs, req)
	if cfg.Size != nil || len(bt.sizes) > 0 {
		// Keep sizes aligned with reqs even if SetConfig added or removed Size
		// while this batch was open.
		for len(bt.sizes) < slot {
			bt.sizes = append(bt.sizes, 0)
		}
		bt.sizes = append(bt.sizes, size)
	}
	bt.live++
	sh.pending++
	bt.bytes += size
	own = decide(cfg.Policy, bt.live, bt.bytes, cfg.MaxItems, cfg.MaxBytes, grp.flushing) != keepOpen
	if own {
		b.closeBatchLocked(cfg, bt)
	}
	sh.mu.Unlock()

	if before != nil {
		b.launch(before, false)
	}
	// Of the goroutines that saw the sweep due, the one that moves the due time wins.
	if sweepAt >= 0 && b.nextSweep.CompareAndSwap(due, sweepAt+cfg.sweepEvery()) {
		b.sweep(sweepAt)
	}
	return bt, slot, own, nil
}

// openLocked opens a batch for grp and, if arm, arms its linger timer.
func (b *Batcher[G, Req, Resp]) openLocked(cfg *Config[Req], sh *shard[G, Req, Resp], grp *group[G, Req, Resp], g G, arm bool) *batch[G, Req, Resp] {
	bt, _ := b.pool.Get().(*batch[G, Req, Resp])
	if bt == nil {
		bt = &batch[G, Req, Resp]{reqs: make([]Req, 0, min(cfg.MaxItems, 1024))}
	}
	bt.sh, bt.grp, bt.key = sh, grp, g
	bt.done = make(chan struct{})
	grp.pending = bt
	if !arm {
		return bt
	}
	bt.armed = true
	b.wg.Add(1) // released by the timer func, or by closeBatchLocked if Stop wins
	if bt.timer == nil {
		bt.timer = time.AfterFunc(cfg.Linger, func() { b.lingerEnded(bt) })
	} else {
		// A recycled batch keeps its timer: it is stopped or its func has
		// released its reference, so this arming cannot meet a stale one.
		bt.timer.Reset(cfg.Linger)
	}
	return bt
}

// lingerEnded runs on the linger timer of bt and dispatches bt if it is still open.
// If bt was dispatched first, closeBatchLocked gave this func a reference to bt
// (Stop failed), so bt cannot have been recycled under it.
func (b *Batcher[G, Req, Resp]) lingerEnded(bt *batch[G, Req, Resp]) {
	defer b.wg.Done()
	sh := bt.sh
	sh.mu.Lock()
	if bt.grp.pending != bt { // already dispatched (full, Close) or dropped
		dispatched := bt.dispatched
		sh.mu.Unlock()
		if dispatched {
			b.release(bt)
		}
		return
	}
	b.closeBatchLocked(b.cfg.Load(), bt)
	sh.mu.Unlock()
	b.launch(bt, false)
	b.release(bt)
}

// closeBatchLocked closes the open batch bt: no item joins it any more. The caller
// must then call launch(bt) (or start and run). It registers the flush with b.wg
// while the shard is locked, so that Close, which locks every shard first, waits
// for it. Under FlushNatural the batch counts as a flush of its group in flight
// until it returns.
//
// References: one per live item, one for the flush (or rejection), and one for
// the linger timer func if Stop could not cancel it.
func (b *Batcher[G, Req, Resp]) closeBatchLocked(cfg *Config[Req], bt *batch[G, Req, Resp]) {
	bt.grp.pending = nil
	bt.sh.pending -= bt.live
	bt.grp.idleSince = b.now()
	bt.dispatched = true
	if cfg.Policy == FlushNatural {
		bt.counted = true
		bt.grp.flushing++
	}
	b.wg.Add(1) // released by run or by start's rejection
	refs := int32(bt.live) + 1
	if bt.armed {
		if bt.timer.Stop() {
			b.wg.Done() // the timer func will not run
		} else {
			refs++ // the timer func runs (or is running) and will release
		}
	}
	bt.refs.Store(refs)
}

// launch flushes a closed batch on a goroutine of its own, or answers all its
// items ErrOverloaded if MaxInFlight batches are already in flight (unless force).
func (b *Batcher[G, Req, Resp]) launch(bt *batch[G, Req, Resp], force bool) {
	if b.start(bt, force) {
		go b.run(bt, false)
	}
}

// start admits a closed batch to flight and reports whether it did; if
// MaxInFlight batches are already in flight (and not force, and Close has not
// begun), it answers every item ErrOverloaded instead. Once Close has begun,
// every batch is forced: one sealed before Close but started after it (its
// sealing item's goroutine, a linger timer, a MaxBytes split), or while Close
// began, was refused for the slots of the batches Close had just forced past
// the cap.
func (b *Batcher[G, Req, Resp]) start(bt *batch[G, Req, Resp], force bool) bool {
	switch {
	case force || b.closed.Load():
		b.inflight.Add(1) // Close flushes beyond the cap
	case b.takeSlot(int64(b.cfg.Load().MaxInFlight)):
	case b.closed.Load():
		// Close began since the check above, and its forced flushes may hold
		// the slots: they are counted only after closed is set, so seeing
		// them full means seeing closed here.
		b.inflight.Add(1)
	default:
		b.c.rejected.Add(uint64(bt.live))
		if bt.counted {
			// The group's open batch, if any, was armed (it opened while this
			// one was counted): its linger flushes it.
			sh := bt.sh
			sh.mu.Lock()
			bt.grp.flushing--
			sh.mu.Unlock()
		}
		bt.err = ErrOverloaded
		close(bt.done)
		b.release(bt)
		b.wg.Done()
		return false
	}
	b.inflightItems.Add(int64(bt.live))
	return true
}

// takeSlot counts one more batch in flight if fewer than limit are, and
// reports whether it did. A refused batch is never counted, not even for a
// moment: the gauge is what Stats reports and what admission checks.
func (b *Batcher[G, Req, Resp]) takeSlot(limit int64) bool {
	if testHookTakeSlot != nil {
		testHookTakeSlot()
	}
	for {
		n := b.inflight.Load()
		if n >= limit {
			return false
		}
		if b.inflight.CompareAndSwap(n, n+1) {
			return true
		}
	}
}

// testHookTakeSlot, if set, runs as takeSlot begins: tests set it to run
// Close between start's check for Close and its claim of a slot.
var testHookTakeSlot func()

// run flushes bt and, under FlushNatural, the batches of its group that
// gathered meanwhile: on this goroutine if it is a flush goroutine, on a new
// one if inline (the caller of Do runs its own batch and must then return).
func (b *Batcher[G, Req, Resp]) run(bt *batch[G, Req, Resp], inline bool) {
	for bt != nil {
		next := b.runOne(bt)
		if next == nil || !b.start(next, false) {
			return
		}
		if inline {
			go b.run(next, false)
			return
		}
		bt = next
	}
}

// runOne flushes bt and wakes its waiters, and returns the group's next batch
// if it is to be flushed at once (closed, not yet started). A panic or Goexit in
// the flush func or in Config.Key becomes a *PanicError for every item; the
// deferred completion runs either way (after a Goexit, the next batch is
// launched on a goroutine of its own).
func (b *Batcher[G, Req, Resp]) runOne(bt *batch[G, Req, Resp]) (next *batch[G, Req, Resp]) {
	cfg := b.cfg.Load()
	start := time.Now()
	now := b.now()
	var (
		reqs   []Req
		out    []Result[Resp]
		slotOf []int32
		err    error
	)
	returned := false
	defer func() {
		if !returned { // the flush, or Config.Key, called runtime.Goexit
			// The stack still holds the frames the Goexit unwinds: it locates
			// the call, as a panic's does.
			err = &PanicError{Value: errGoexit, Stack: debug.Stack()}
			if out == nil { // in Config.Key: nothing sent, as for a panic there
				reqs, out, slotOf = nil, bt.res[:bt.live], nil
			}
		}
		next = b.finish(cfg, bt, len(reqs), out, slotOf, err, time.Since(start))
		if !returned && next != nil {
			b.launch(next, false)
			next = nil
		}
	}()
	reqs, out, slotOf, err = b.compactSafe(bt, cfg.Key)

	// Saturated (with a millisecond to spare): a FlushTimeout of the largest
	// Duration means no timeout, not 1734.
	dl := now + min(int64(cfg.FlushTimeout), math.MaxInt64-now-int64(time.Millisecond))
	// Not part of the pooled batch: a flush may keep its context after it
	// returns (a context derived from it watches it from a goroutine).
	ctx := &flushCtx{deadline: b.epoch.Add(time.Duration(dl)), done: b.doneAt(dl, cfg.FlushTimeout)}
	if err == nil { // Config.Key did not panic
		err = b.call(ctx, bt.key, reqs, out)
	}
	returned = true
	return nil
}

// compactSafe runs compact and turns a panic in Config.Key into a *PanicError
// for the whole batch, which is then not sent: the panic would otherwise end
// the flush goroutine (and the process) or leave the batch's waiters stranded.
func (b *Batcher[G, Req, Resp]) compactSafe(bt *batch[G, Req, Resp], key func(Req) (string, bool)) (reqs []Req, out []Result[Resp], slotOf []int32, err error) {
	returned := false
	defer func() {
		if !returned { // a panic, even panic(nil) under panicnil=1 (recover gives nil), or a Goexit
			// Nothing sent: one result slot per live item, none handed out.
			// (After a Goexit, which recover does not stop, runOne's defer
			// makes its own error.)
			reqs, out, slotOf = nil, bt.res[:bt.live], nil
			err = &PanicError{Value: recover(), Stack: debug.Stack()}
		}
	}()
	reqs, out, slotOf = bt.compact(key)
	returned = true
	return reqs, out, slotOf, nil
}

// call runs the flush func, turning a panic into a *PanicError.
func (b *Batcher[G, Req, Resp]) call(ctx context.Context, g G, reqs []Req, out []Result[Resp]) (err error) {
	returned := false
	defer func() {
		if !returned { // as in compactSafe: a nil recover is a panic(nil) here too
			err = &PanicError{Value: recover(), Stack: debug.Stack()}
		}
	}()
	err = b.flush(ctx, g, reqs, out)
	returned = true
	return err
}

// compact returns the requests to send and the slice for their results. In the
// common case (nobody left, no de-duplication) they are the batch's own slots and
// slotOf is nil; otherwise slotOf[i] is the index in reqs/out serving slot i, or
// -1 for a slot whose caller left.
func (bt *batch[G, Req, Resp]) compact(key func(Req) (string, bool)) (reqs []Req, out []Result[Resp], slotOf []int32) {
	if cap(bt.res) < len(bt.reqs) {
		bt.res = make([]Result[Resp], len(bt.reqs))
	}
	bt.res = bt.res[:len(bt.reqs)]
	if bt.live == len(bt.reqs) && (key == nil || bt.live == 1) {
		// Clipped: a flush that appends to them must not write into the spare
		// capacity of the pooled slabs, which release does not clear and a
		// later batch (of any group) reuses as its untouched results.
		n := len(bt.reqs)
		return bt.reqs[:n:n], bt.res[:n:n], nil
	}
	slotOf = make([]int32, len(bt.reqs))
	reqs = make([]Req, 0, bt.live)
	var seen map[string]int32
	if key != nil {
		seen = make(map[string]int32, bt.live)
	}
	for i, r := range bt.reqs {
		if i < len(bt.gone) && bt.gone[i] {
			slotOf[i] = -1
			continue
		}
		if key != nil {
			if k, ok := key(r); ok {
				if j, dup := seen[k]; dup {
					slotOf[i] = j
					continue
				}
				seen[k] = int32(len(reqs))
			}
		}
		slotOf[i] = int32(len(reqs))
		reqs = append(reqs, r)
	}
	return reqs, make([]Result[Resp], len(reqs)), slotOf
}

// finish records the batch, hands results to the slots and wakes the waiters.
// sent is the number of requests passed to the flush func: len(out), or 0 when
// a panicking Config.Key failed the batch before the call (out then holds one
// result slot per live item, and nothing was sent).
// It returns the group's next batch, closed, if it is to be flushed at once.
func (b *Batcher[G, Req, Resp]) finish(cfg *Config[Req], bt *batch[G, Req, Resp], sent int, out []Result[Resp], slotOf []int32, err error, took time.Duration) (next *batch[G, Req, Resp]) {
	for i, j := range slotOf { // nil in the common case: out is bt.res
		if j >= 0 {
			bt.res[i] = out[j]
		}
	}
	bt.err = err
	b.c.batches.Add(1)
	b.c.items.Add(uint64(bt.live))
	b.c.sent.Add(uint64(sent))
	b.c.deduped.Add(uint64(bt.live - len(out)))
	b.c.addFill(min(fillScale, fillScale*uint64(bt.live)/uint64(cfg.MaxItems)))
	if err != nil {
		b.c.flushErrors.Add(1)
	}
	b.c.recordLatency(took)
	if bt.counted {
		next = b.returnedLocking(bt)
	}
	b.inflightItems.Add(-int64(bt.live))
	b.inflight.Add(-1)
	close(bt.done)
	b.release(bt)
	b.wg.Done()
	return next
}

// returnedLocking records that bt, a counted flush of its group, has returned,
// and closes the group's open batch if it is to be flushed now.
func (b *Batcher[G, Req, Resp]) returnedLocking(bt *batch[G, Req, Resp]) *batch[G, Req, Resp] {
	sh, grp := bt.sh, bt.grp
	sh.mu.Lock()
	defer sh.mu.Unlock()
	grp.flushing--
	cfg := b.cfg.Load()
	if p := grp.pending; p != nil && !sh.closed && flushOnReturn(cfg.Policy, p.live) {
		b.closeBatchLocked(cfg, p)
		return p
	}
	return nil
}

// release drops one reference to a dispatched batch and recycles it after the
// last one. Nothing may touch bt after its release.
func (b *Batcher[G, Req, Resp]) release(bt *batch[G, Req, Resp]) {
	if bt.refs.Add(-1) != 0 {
		return
	}
	if cap(bt.reqs) > maxPooledSlots {
		return
	}
	clear(bt.reqs) // let requests and responses be collected
	clear(bt.res)
	var zero G
	*bt = batch[G, Req, Resp]{reqs: bt.reqs[:0], sizes: bt.sizes[:0], gone: bt.gone[:0], res: bt.res[:0], key: zero, timer: bt.timer}
	b.pool.Put(bt)
}

// wait blocks until bt is flushed or ctx ends, and returns the item's outcome.
func (b *Batcher[G, Req, Resp]) wait(ctx context.Context, bt *batch[G, Req, Resp], slot int) (Resp, error) {
	var zero Resp
	if dc := ctx.Done(); dc == nil {
		<-bt.done
	} else {
		select {
		case <-bt.done:
		case <-dc:
			if b.leave(bt, slot) {
				return zero, ctx.Err() // removed before dispatch: holds no reference
			}
			select { // dispatched: take the result if it is already there
			case <-bt.done:
			default:
				b.release(bt)
				return zero, ctx.Err()
			}
		}
	}
	if err := bt.err; err != nil {
		b.release(bt)
		return zero, err
	}
	r := bt.res[slot]
	b.release(bt)
	return r.Resp, r.Err
}

// leave removes the item in slot from bt if bt is still open, and reports whether
// it did. A batch left by all its items is dropped without a flush.
func (b *Batcher[G, Req, Resp]) leave(bt *batch[G, Req, Resp], slot int) bool {
	sh := bt.sh
	sh.mu.Lock()
	defer sh.mu.Unlock()
	if bt.grp.pending != bt {
		return false
	}
	for len(bt.gone) < len(bt.reqs) {
		bt.gone = append(bt.gone, false)
	}
	bt.gone[slot] = true
	var zero Req
	bt.reqs[slot] = zero // let the request be collected
	bt.live--
	sh.pending--
	if slot < len(bt.sizes) {
		bt.bytes -= bt.sizes[slot]
	}
	b.c.cancelled.Add(1)
	if bt.live == 0 {
		bt.grp.pending = nil
		bt.grp.idleSince = b.now()
		if bt.armed && bt.timer.Stop() {
			b.wg.Done()
		}
	}
	return true
}

// sweep evicts the groups that have had nothing pending for IdleTTL at now, and
// rebuilds shard maps that shrank to a quarter of their peak (Go maps do not give
// memory back on delete). It locks one shard at a time.
func (b *Batcher[G, Req, Resp]) sweep(now int64) int {
	ttl := int64(b.cfg.Load().IdleTTL)
	idle := func(grp *group[G, Req, Resp]) bool { // the caller holds grp's shard lock
		return grp.pending == nil && grp.flushing == 0 && now-grp.idleSince >= ttl
	}
	evicted := 0
	for i := range b.shards {
		sh := &b.shards[i]
		sh.mu.Lock()
		unequal := false // an idle group not equal to itself (a NaN): delete cannot remove it
		for g, grp := range sh.groups {
			if idle(grp) {
				if g != g {
					unequal = true
					continue
				}
				delete(sh.groups, g)
				evicted++
			}
		}
		if unequal {
			kept := make(map[G]*group[G, Req, Resp], len(sh.groups))
			for g, grp := range sh.groups {
				if g != g && idle(grp) {
					evicted++
					continue
				}
				kept[g] = grp
			}
			sh.groups = kept
		}
		if mapshrink.Due(len(sh.groups), sh.peak, 64) {
			sh.groups = mapshrink.Rebuild(sh.groups)
			sh.peak = len(sh.groups)
		}
		sh.mu.Unlock()
	}
	b.c.evicted.Add(uint64(evicted))
	return evicted
}
