package cache

import (
	"runtime"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/tierkit/tierkit/internal/mix"
)

// The buffers between the callers and the policy: hits and deferred inserts wait
// in per-goroutine stripes until a holder of the policy lock applies them.

// stripe is one lossy buffer of hits waiting for the policy, with the hit and
// miss counters of the readers that picked it, and a small buffer of new nodes
// whose writers found the policy lock busy (admit). A goroutine picks its
// stripe by the address of its stack (stripeOf), so two goroutines running at
// once mostly write to different stripes and no cache line bounces between
// cores.
type stripe[K comparable] struct {
	mu sync.Mutex // protects n, buf, shift, na, adds and lockedHits
	// work is 1 while the stripe holds buffered hits or deferred nodes
	// (n > 0 or na > 0). It is written under mu, on the stripe's own line,
	// and read without mu by drains, which skip idle stripes without taking
	// their locks: a lock try is a write, and on every insert it pulled the
	// idle stripes' lines from one core to the other.
	work atomic.Uint32
	n    int
	buf  [stripeLen]*node[K]
	// shift[i] is the sampling's shift of the draw that buffered buf[i]
	// (0 for a hit not drawn, an update's included): its replay counts
	// 1<<shift[i] hits in the climber's sample, whatever the shift then.
	shift  [stripeLen]uint8
	na     int
	adds   [addLen]*node[K]
	hits   atomic.Uint64 // hits counted while mu was busy
	misses atomic.Uint64
	// lockedHits counts the hits recorded under mu (recordHit).
	lockedHits uint64
	// fails counts the lock tries of recordHit that found mu held (see
	// contended).
	fails atomic.Uint32
	_     [64]byte
}

const (
	stripeLen = 32 // buffered hits per stripe
	addLen    = 8  // deferred new nodes per stripe

	// admitYields bounds how many times a writer whose stripe cannot take
	// its new node yields before it waits for the policy lock.
	admitYields = 16
)

// stripeOf picks the calling goroutine's stripe by the address of its stack,
// as otter does: it stays put while the goroutine runs (a stack that grows
// moves, which only changes the stripe) and differs between goroutines running
// at once, so concurrent readers mostly write different cache lines. The
// address is only hashed, never dereferenced.
func (c *Cache[K, V]) stripeOf() *stripe[K] {
	var x byte
	return c.stripeAt(uintptr(unsafe.Pointer(&x)))
}

// stripeAt is the stripe of a goroutine whose stack is at addr.
//
// Two goroutines pick the same stripe with probability 1/len(stripes), and
// the stack address of a goroutine does not change: two long-lived
// goroutines that collide would share one stripe for as long as they run,
// each hit's lock try failing about half the time (BenchmarkThroughput's
// two goroutines at 100% reads: 4 to 5 times the time per hit, in 3 of 20
// runs measured). The salt, which contended changes, deals them again.
func (c *Cache[K, V]) stripeAt(addr uintptr) *stripe[K] {
	return &c.stripes[uint32(mix.Mix64(uint64(addr)^c.stripeSalt.Load())>>32)&c.smask]
}

// resaltFails is how many failed lock tries of one stripe change the salt.
// Drains take the stripes of other goroutines for a moment, so some tries
// fail without any collision (at 75% reads while evicting, 7-9% of them);
// a collision fails about half of every try, and reaches the count within a
// few hundred operations.
const resaltFails = 256

// contended counts a failed lock try of st and, every resaltFails of them,
// changes the salt, so that every goroutine picks its stripe anew.
func (c *Cache[K, V]) contended(st *stripe[K]) {
	c.tryFailed()
	if st.fails.Add(1)%resaltFails == 0 {
		c.stripeSalt.Add(0x9e3779b97f4a7c15) // the golden ratio's odd constant: every add gives another salt
	}
}

// recordHit buffers the hit for the policy, unless the hit sampling skips a
// counted hit (sample.go); when the buffer is busy or full the hit is dropped
// (the policy only needs a sample). The reader that fills the buffer replays
// it into the policy if the policy lock is free, still holding the stripe:
// other readers of the stripe drop their samples meanwhile rather than wait.
// Both locks are only tried here, so the order stripe, then policy, cannot
// deadlock with drainLocked, which tries stripes under the policy lock.
//
// A hit (count) is counted in the stripe: under its lock when the buffer is
// taken, which saves the hit path an atomic add, else atomically (always
// atomically while sampling: the count is the sample's draw).
func (c *Cache[K, V]) recordHit(st *stripe[K], n *node[K], count bool) {
	drawn := uint32(0) // the shift of the draw that buffers the hit
	if sh := c.sampleShift.Load(); sh != 0 && count {
		if !sampleHit(st.hits.Add(1), sh) {
			return // counted, not buffered
		}
		count, drawn = false, sh // counted already
	}
	if !st.mu.TryLock() {
		if count {
			st.hits.Add(1)
		}
		c.contended(st)
		return
	}
	if count {
		st.lockedHits++
	}
	replayed := false
	if st.n < stripeLen {
		st.buf[st.n], st.shift[st.n] = n, uint8(drawn)
		st.n++
		if st.n == 1 {
			st.work.Store(1)
		}
		if st.n == stripeLen {
			if c.mu.TryLock() {
				c.replayLocked(st)
				c.resampleLocked()
				c.pol.climb()
				c.mu.Unlock()
				replayed = true
				st.settle()
			} else {
				c.tryFailed()
			}
		}
	}
	st.mu.Unlock()
	if replayed {
		c.maintain()
	}
}

// drainLocked adds the deferred new nodes and replays the buffered hits of
// every stripe into the policy. The caller holds c.mu, and must release it
// with unlockPolicy: adds may evict.
func (c *Cache[K, V]) drainLocked() { c.drainStripesLocked(true) }

// drainAddsLocked is drainLocked without the hits: Len uses it, so that
// counting entries leaves the replay, and so a single goroutine's policy,
// exactly as it was. It returns at once when nothing is deferred.
func (c *Cache[K, V]) drainAddsLocked() {
	if c.deferred.Load() > 0 {
		c.drainStripesLocked(false)
	}
}

// drainStripesLocked takes every stripe it can without waiting (a reader
// holding one may be descheduled: never wait on readers), adds its deferred
// nodes and, if hits is set, replays its buffered hits. The caller holds c.mu.
func (c *Cache[K, V]) drainStripesLocked(hits bool) {
	replayed := false
	for i := range c.stripes {
		st := &c.stripes[i]
		if st.work.Load() == 0 || !st.mu.TryLock() {
			continue
		}
		if st.na > 0 {
			c.addDeferredLocked(st)
		}
		if hits && st.n > 0 {
			replayed = true
			c.replayLocked(st)
		}
		st.settle()
		st.mu.Unlock()
	}
	if replayed {
		c.pol.climb()
	}
	if hits {
		c.observeDrain()
	}
}

// addDeferredLocked adds st's deferred new nodes to the policy, in the order
// they were stored, skipping those invalidated meanwhile. The caller holds
// c.mu and st.mu.
func (c *Cache[K, V]) addDeferredLocked(st *stripe[K]) {
	for _, n := range st.adds[:st.na] {
		if !n.dead.Load() {
			c.pol.add(n)
		}
	}
	clear(st.adds[:st.na])
	c.deferred.Add(-int64(st.na))
	st.na = 0
}

// settle clears st.work if the stripe holds nothing. The caller holds st.mu.
func (st *stripe[K]) settle() {
	if st.n == 0 && st.na == 0 && st.work.Load() != 0 {
		st.work.Store(0)
	}
}

// replayLocked applies st's buffered hits to the policy and empties it. The
// caller holds c.mu and st.mu. Each counts the hits its draw stood for when
// it was buffered: the shift may have changed since (a replay of another
// stripe or a drain resampled), and weighted by the shift at the replay the
// hits buffered one by one before the sampling started counted 64 each, and
// those drawn one in 64 counted one after it ended.
func (c *Cache[K, V]) replayLocked(st *stripe[K]) {
	c.pol.warm(st.buf[:st.n])
	for i, n := range st.buf[:st.n] {
		c.pol.access(n, 1<<st.shift[i])
	}
	clear(st.buf[:st.n])
	st.n = 0
}

// admit adds a node just stored in the index to the policy, evicting as
// needed. A node invalidated in between is dead and skipped. Nil is a no-op.
//
// A writer that finds the policy lock held does not wait for it: it leaves the
// node in its stripe (deferAdd) and the lock's holder adds it on release
// (unlockPolicy), as otter and Caffeine buffer writes. Writers that queued on
// the lock parked, and on 2 cores a parked writer left a core idle until the
// scheduler woke it. Only when the stripe's buffer is full or busy does the
// writer wait, which bounds the deferred nodes at addLen per stripe. The
// index runs ahead of the capacity by those, and by the entry of each writer
// that waits here: one per waiting writer, not bounded by the stripes. A
// single goroutine always gets the lock, so its replay is exactly that of a
// strict policy.
func (c *Cache[K, V]) admit(n *node[K]) {
	if n == nil {
		return
	}
	for try := 0; !c.mu.TryLock(); try++ {
		if try == 0 {
			c.tryFailed()
		}
		if c.deferAdd(n) {
			c.maintain()
			return
		}
		if try == admitYields {
			c.mu.Lock()
			break
		}
		// The stripe is full or busy: the holder is likely descheduled.
		// Yield rather than queue on the lock at once: a waiter queued for
		// over a millisecond switches sync.Mutex to hand-off mode, where
		// every unlock yields the processor to the next waiter.
		runtime.Gosched()
	}
	c.drainLocked()
	if !n.dead.Load() {
		c.pol.add(n)
		// The drain resampled before this insert: the insert ends a
		// read-mostly sampling now, not at the next drain.
		c.resampleLocked()
	}
	c.unlockPolicy()
}

// deferAdd leaves n in the calling goroutine's stripe for the policy lock's
// next holder, and reports whether it could (false: the buffer is full or
// busy).
func (c *Cache[K, V]) deferAdd(n *node[K]) bool {
	return c.deferAddTo(c.stripeOf(), n)
}

// deferAddTo is deferAdd to the stripe st.
func (c *Cache[K, V]) deferAddTo(st *stripe[K], n *node[K]) bool {
	if !st.mu.TryLock() {
		return false
	}
	ok := st.na < addLen
	if ok {
		st.adds[st.na] = n
		st.na++
		st.work.Store(1) // before deferred counts it: who sees the count sees the flag
		c.deferred.Add(1)
	}
	st.mu.Unlock()
	return ok
}

// unlockPolicy releases c.mu after a change to the policy (releasePolicy),
// then adds the nodes deferred meanwhile (maintain). The caller holds c.mu and
// no shard lock.
func (c *Cache[K, V]) unlockPolicy() {
	c.releasePolicy()
	c.maintain()
}

// releasePolicy takes the nodes the policy evicted, releases c.mu and unlinks
// them from the index.
func (c *Cache[K, V]) releasePolicy() {
	var buf [4]*node[K]
	victims := c.takeEvictedLocked(buf[:0])
	c.mu.Unlock()
	c.unlink(victims)
}

// maintain adds deferred nodes to the policy if the lock is free. A writer
// defers a node and then calls maintain; the lock's holder calls it after
// releasing the lock; so one of them sees the node whichever order they run in.
// It makes a bounded number of passes: a stripe busy during a pass keeps its
// nodes until the next write, replay or Len.
func (c *Cache[K, V]) maintain() {
	for pass := 0; pass < 2 && c.deferred.Load() > 0 && c.mu.TryLock(); pass++ {
		c.drainLocked()
		c.releasePolicy()
	}
}

// takeEvictedLocked marks the nodes the policy just evicted dead and appends
// them to victims for unlink (a caller's small array keeps the common case of
// one or two victims off the heap). The caller holds c.mu.
func (c *Cache[K, V]) takeEvictedLocked(victims []*node[K]) []*node[K] {
	if len(c.pol.evicted) == 0 {
		return victims
	}
	victims = append(victims, c.pol.evicted...)
	clear(c.pol.evicted)
	c.pol.evicted = c.pol.evicted[:0]
	for _, n := range victims {
		c.shards[n.hash&(numShards-1)].unlinking.Add(1) // before the mark: see shard.unlinking
		n.dead.Store(true)
	}
	c.stats.evictions.Add(uint64(len(victims)))
	return victims
}

// unlink removes evicted nodes from the index, one shard lock at a time (the
// policy lock is taken under shard locks, so evictions cannot lock shards).
// An entry is only removed if it is still the evicted node's (a store that
// found the node dead replaced it with a new entry and node). The entry is
// found by its node, not its key: a NaN key's entry would never be found.
func (c *Cache[K, V]) unlink(victims []*node[K]) {
	for _, n := range victims {
		s := &c.shards[n.hash&(numShards-1)]
		s.mu.Lock()
		if e := s.ix.entryOf(n); e != nil {
			s.ix.remove(e)
		}
		s.unlinking.Add(-1)
		s.mu.Unlock()
	}
}
