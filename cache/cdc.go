package cache

import (
	"math"
	"strconv"
	"time"
)

// EventKind says what an [Event] reports. Kinds start at 1 so that a zero Event
// is invalid.
type EventKind uint8

const (
	// Write reports that Key changed at Version. With Refill set, Value is the
	// new value and a cached entry is updated in place; otherwise the entry is
	// invalidated.
	Write EventKind = iota + 1
	// Delete reports that Key was deleted at Version: the entry is invalidated.
	Delete
	// Checkpoint is a watermark: every change with a version up to Version has
	// been delivered (and applied before this event). It renews the staleness
	// bound.
	Checkpoint
)

// String returns "write", "delete" or "checkpoint", or "EventKind(n)" for any
// other n, so that a printed Event names its kind.
func (k EventKind) String() string {
	switch k {
	case Write:
		return "write"
	case Delete:
		return "delete"
	case Checkpoint:
		return "checkpoint"
	}
	return "EventKind(" + strconv.Itoa(int(k)) + ")"
}

// Event is one change-data-capture record for [Cache.Apply].
type Event[K comparable, V any] struct {
	Kind EventKind
	// Key is the changed key (Write, Delete).
	Key K
	// Version orders the changes of one key, and is the watermark of a
	// Checkpoint; changes of one key at one version (a commit that wrote it
	// twice) apply in stream order. Zero means unknown: a Write or Delete
	// with it always applies; a Checkpoint's zero is the oldest watermark, so
	// it applies only while every watermark seen is zero (a stream without
	// versions).
	Version uint64
	// Value is the new value of a Write when Refill is set.
	Value V
	// Refill reports whether Value holds the new value.
	Refill bool
	// Cut is when a Checkpoint was cut, on the cache's clock, if the stream
	// knows it. When set and earlier than the time the event is applied, the
	// staleness bound counts from Cut, so the stream's delivery delay no longer
	// adds to the bound. Zero: the bound counts from the time of Apply.
	Cut time.Time
}

// Apply applies change-stream events in order. It is safe for concurrent use,
// but the staleness contract assumes one stream, applied by one goroutine in
// stream order.
//
// A Write or Delete of a key makes every fill of that key already in flight lose
// (its result is returned to its callers but not stored) and stops later reads
// from joining those fills. Then:
//   - Write with Refill updates a cached entry to Value at Version, unless the
//     entry already reflects a newer version; an uncached key stays uncached.
//     A Write with Refill at a Version not above the newest checkpoint's
//     watermark is a replay (the checkpoint said it was delivered before it:
//     a stream resumed from an older offset) and its Value may be older than
//     the cached one: it invalidates the entry, as a Write without Refill.
//   - Write without Refill, and Delete, remove the entry unless it already
//     reflects a newer version (counted in [Stats.Invalidations]).
//
// An entry refilled at Version does not reflect a later event at Version: a
// commit that changes a key twice carries both changes at its version, and
// the second must win (a refill delivered twice is applied twice).
//
// A Checkpoint whose watermark is not older than the newest one seen records
// the current time (or its Cut, if earlier) as the newest checkpoint: hits are
// served for MaxStaleness after it. An older watermark is ignored. Events of an unknown Kind are
// ignored.
//
// Versions and watermarks must keep growing for the cache's life: a stream
// whose versions start over (a new log, a source restored from a backup)
// has every later checkpoint ignored, so no hit is served again (each read
// loads, as if every entry outlived the bound), and entries at the old,
// higher versions ignore its invalidations. Give such a stream a new Cache.
//
// Apply keeps no event's Key once it returns (a refilled entry keeps its own
// key), so a stream reader may pass keys that alias a buffer it reuses, such
// as an unsafe.String over the bytes of a message, without copying them.
//
// A run of invalidations (Writes without Refill, and Deletes) is looked up
// ahead, warmBatch keys at a time, as LookupMany does: a stream reader that
// passes the events it has at hand in one call lets the CPU overlap the
// cache misses of their index lookups.
func (c *Cache[K, V]) Apply(events ...Event[K, V]) {
	for i := 0; i < len(events); {
		e := &events[i]
		switch {
		case e.Kind == Write && e.Refill:
			c.refill(e.Key, e.Version, e.Value)
		case e.Kind == Write || e.Kind == Delete:
			i += c.invalidateRun(events[i:])
			continue
		case e.Kind == Checkpoint:
			c.checkpoint(e.Version, e.Cut)
		}
		i++
	}
}

// invalidateRun applies the invalidations at the start of events, up to
// warmBatch of them, after looking their keys up ahead, and returns how many
// it applied.
//
// The keys are hashed before any is applied. A key that cannot be hashed (K
// an interface holding a slice: a programmer error, which panics as a map
// would) panics there; the run's invalidations before its event are then
// applied before the panic goes on, as they are when each event comes in a
// call of its own: a process that recovers the panic must not keep serving
// the values they remove.
func (c *Cache[K, V]) invalidateRun(events []Event[K, V]) int {
	var hs [warmBatch]uint64
	n := 0
	for n < len(events) && n < warmBatch {
		if e := &events[n]; e.Kind == Delete || e.Kind == Write && !e.Refill {
			n++
			continue
		}
		break
	}
	if n == 1 { // nothing before it to apply should its key panic
		c.invalidateHashed(events[0].Key, c.hash(events[0].Key), events[0].Version)
		return 1
	}
	hashed := 0
	defer func() {
		if hashed < n { // hash panicked on events[hashed].Key
			for j := range hashed {
				c.invalidateHashed(events[j].Key, hs[j], events[j].Version)
			}
		}
	}()
	for ; hashed < n; hashed++ {
		hs[hashed] = c.hash(events[hashed].Key)
	}
	c.warmHashed(hs[:n])
	for j := range n {
		c.invalidateHashed(events[j].Key, hs[j], events[j].Version)
	}
	return n
}

// refill updates a cached key to value at version.
//
// A refill at a version up to the newest checkpoint's watermark is a replay:
// that checkpoint said every change up to its watermark was delivered before
// it, so this event was delivered before (a consumer resumed from an older
// offset, as at-least-once delivery does after a reconnect). Its value may be
// older than the cached one (a load's, whose version is unknown), and the
// newest checkpoint, which vouches for refilled values, is recent: the key
// is invalidated instead, as by a Write without a value.
func (c *Cache[K, V]) refill(key K, version uint64, value V) {
	if version != 0 && version <= c.watermark.Load() {
		c.invalidate(key, version)
		return
	}
	h := c.hash(key)
	s := &c.shards[h&(numShards-1)]
	s.mu.Lock()
	defer s.mu.Unlock()
	c.invalidateFillsLocked(s, key)
	e := s.ix.get(key, h)
	if e == nil || version != 0 && e.version > version {
		return
	}
	if s.evictedLocked(e) {
		// Evicted, its unlink not done yet: the key is no longer cached, and
		// stays uncached. Counting a refill of it would count an entry the
		// eviction removes anyway, and leaving it would serve the value
		// this event replaces until the unlink: take it out now (the
		// unlink then finds nothing), as storeLocked does.
		s.ix.remove(e)
		return
	}
	// Only checkpoints vouch for a refilled value: a later change may already
	// be committed but not yet delivered (see unvouched).
	c.update(s, e, item[V]{val: value, version: version, freshAt: unvouched})
	c.stats.refills.Add(1)
}

// checkpoint records a watermark and renews the staleness bound.
func (c *Cache[K, V]) checkpoint(watermark uint64, cut time.Time) {
	for {
		w := c.watermark.Load()
		if watermark < w {
			return
		}
		if c.watermark.CompareAndSwap(w, watermark) {
			break
		}
	}
	now := c.now()
	if !cut.IsZero() {
		// A cut so far before New that Sub saturates is unvouched: it
		// vouches for nothing.
		now = min(now, int64(cut.Sub(c.base)))
	}
	for {
		last := c.lastCheckpoint.Load()
		if now <= last || c.lastCheckpoint.CompareAndSwap(last, now) {
			break
		}
	}
	c.stats.checkpoints.Add(1)
}

// CheckpointAge returns how long ago (on the cache's clock) the newest
// checkpoint was applied, or cut (see [Event.Cut]); before the first, the age
// of the cache itself (though no value refilled from the stream is served
// before the first: see Freshness in the package doc).
func (c *Cache[K, V]) CheckpointAge() time.Duration {
	last := c.lastCheckpoint.Load()
	if last == unvouched {
		last = 0
	}
	now := c.now()
	if last < 0 && now > math.MaxInt64+last { // now - last overflows: a Cut long before New
		return math.MaxInt64
	}
	return time.Duration(now - last)
}
