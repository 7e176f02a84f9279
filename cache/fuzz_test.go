package cache_test

import (
	"errors"
	"math"
	"strconv"
	"testing"
	"time"

	"github.com/tierkit/tierkit/cache"
)

// FuzzCache drives a small cache from one goroutine through arbitrary
// operations and checks each result against a model of the documented
// behaviour. The model knows, for every key, the value the cache may hold, its
// version and the time it was vouched fresh, and whether the key is cached
// (present), not cached (absent), or either (maybe: eviction may have dropped
// it, and its staleness keeps Contains from telling). After every step:
//   - a hit returns exactly the model's value, and never for a key removed,
//     invalidated, not owned or beyond the staleness bound; a present key
//     within the bound is a hit (its loss would be counted as an eviction);
//   - a loader is called only on a miss, and its value is what Get returns
//     and, unless the key was invalidated during the load, what is cached;
//   - Len never exceeds the capacity and counts the present keys;
//   - Stats counts exactly the hits, misses, loads, load errors, unowned
//     reads, dropped fills and checkpoints the model saw, the other counters
//     within what the model allows, and no counter decreases.
//
// The first byte configures the cache: Capacity is 1 + its low 5 bits; bit 5
// sets a staleness bound (on a fake clock), bit 6 makes the values strings
// (updated by replacing the entry, not in place), bit 7 leaves every fifth key
// unowned. The rest is a program of operations (see fuzzOp).
func FuzzCache(f *testing.F) {
	f.Add(uint8(3), []byte{0, 1, 1, 1, 2, 1, 3, 4, 0, 5})
	f.Add(uint8(1), []byte{0, 0, 0, 1, 0, 2, 1, 0, 5, 3})
	f.Add(uint8(16), []byte("a longer seed with many different keys and ops"))
	for _, s := range fuzzCacheSeeds {
		f.Add(s.conf, s.ops)
	}
	f.Fuzz(func(t *testing.T, conf uint8, ops []byte) {
		if conf&fuzzStrings != 0 {
			runCacheModel(t, conf, ops, func(v int) string { return "v" + strconv.Itoa(v) })
		} else {
			runCacheModel(t, conf, ops, func(v int) int { return v })
		}
	})
}

// unvouched is the freshness of a value only checkpoints vouch for, and the
// newest checkpoint's before the first (the cache's own is unexported).
const unvouched = math.MinInt64

// Bits of FuzzCache's configuration byte above the capacity.
const (
	fuzzBound   = 1 << 5
	fuzzStrings = 1 << 6
	fuzzUnowned = 1 << 7
)

// The operations of a FuzzCache program. Each is three bytes, op, key and
// arg (missing bytes read as 0), except fuzzBatch: op, count, then two bytes
// per event.
const (
	fuzzSet        = iota // Set(key, new value)
	fuzzDelete            // Delete(key)
	fuzzWrite             // Apply(Write key, version arg%8)
	fuzzRefill            // Apply(Write key with Refill, version arg%8, new value)
	fuzzDelEvent          // Apply(Delete key, version arg%8)
	fuzzCheckpoint        // Apply(Checkpoint, version arg%8, Cut coded (arg>>3)%4: see cutOffset)
	fuzzTryGet            // TryGet(key)
	fuzzGet               // Get(key) with loader behaviour arg%8 (fuzzLoad*), its version (arg>>3)%8
	fuzzGetMany           // GetMany of 1+arg%4 keys key+i*((arg>>2)%4), bulk loader behaviour (arg>>4)%5
	fuzzAdvance           // the clock moves arg%6 ms
	fuzzBatch             // one Apply of 2+count%19 events, each (kind%4 | version%8<<2 | cut<<5, key)
	fuzzSetConfig         // SetConfig: Capacity 1+arg%32, the bound if arg&32, every fifth key unowned if arg&64
	fuzzGetValid          // GetValid(key), the check rejects every value if arg&1, loader behaviour (arg>>1)%3
	fuzzOps
)

// What a Get's loader does before it returns (arg%8 of fuzzGet).
const (
	fuzzLoadValue   = iota // returns a new value
	fuzzLoadValue2         // the same
	fuzzLoadError          // returns an error
	fuzzLoadSet            // Sets the key to another value, returns a new value
	fuzzLoadDelete         // Deletes the key
	fuzzLoadWrite          // applies a Write event of the key
	fuzzLoadRefill         // applies a Write event with Refill
	fuzzLoadAdvance        // moves the clock by a millisecond
	fuzzLoadBehaviours
)

// What GetMany's bulk loader does ((arg>>4)%5 of fuzzGetMany).
const (
	fuzzManyValues = iota // returns new values
	fuzzManyError         // returns an error
	fuzzManyShort         // returns one value too many
	fuzzManyDelete        // Deletes its first key, returns new values
	fuzzManySet           // Sets its first key, returns new values
	fuzzManyBehaviours
)

const (
	fuzzKeys   = 40
	fuzzUnit   = time.Millisecond
	fuzzBoundD = 4 * fuzzUnit
)

var errFuzzLoad = errors.New("fuzz: load failed")

// ownsFifth is the Owns of a cache that leaves every fifth key to others.
func ownsFifth(k byte) bool { return k%5 != 4 }

// fuzzCacheSeeds reach every operation and loader behaviour.
var fuzzCacheSeeds = []struct {
	conf uint8
	ops  []byte
}{
	// Set, read back, Delete it, read again; a Get that loads, then hits.
	{4, []byte{fuzzSet, 1, 0, fuzzTryGet, 1, 0, fuzzDelete, 1, 0, fuzzTryGet, 1, 0, fuzzGet, 2, 0, fuzzGet, 2, 0}},
	// Versioned events: a refill at 5 blocks a refill at 4 and a write at
	// 3, not a delete at 6.
	{4, []byte{
		fuzzSet, 3, 0, fuzzRefill, 3, 5, fuzzRefill, 3, 4, fuzzWrite, 3, 3, fuzzTryGet, 3, 0,
		fuzzDelEvent, 3, 6, fuzzTryGet, 3, 0,
	}},
	// Every loader behaviour of Get, on a cache with a bound and strings.
	{fuzzBound | fuzzStrings | 8, []byte{
		fuzzGet, 1, fuzzLoadError, fuzzGet, 1, fuzzLoadSet, fuzzGet, 2, fuzzLoadDelete,
		fuzzGet, 3, fuzzLoadWrite, fuzzGet, 4, fuzzLoadRefill | 2<<3, fuzzGet, 5, fuzzLoadAdvance,
		fuzzTryGet, 1, 0, fuzzTryGet, 5, 0,
	}},
	// Staleness: the bound runs out, a checkpoint renews it, one with an
	// older watermark does not, one cut earlier renews it less.
	{fuzzBound | 8, []byte{
		fuzzSet, 1, 0, fuzzAdvance, 0, 5, fuzzTryGet, 1, 0, fuzzCheckpoint, 0, 3, fuzzTryGet, 1, 0,
		fuzzAdvance, 0, 3, fuzzCheckpoint, 0, 2, fuzzAdvance, 0, 2, fuzzTryGet, 1, 0,
		fuzzCheckpoint, 0, 4 | 3<<3, fuzzAdvance, 0, 2, fuzzGet, 1, 0, fuzzRefill, 1, 7, fuzzTryGet, 1, 0,
	}},
	// GetMany with each bulk loader behaviour, duplicates included.
	{6, []byte{
		fuzzSet, 2, 0, fuzzGetMany, 1, 3 | 1<<2, fuzzGetMany, 1, 2 | fuzzManyError<<4,
		fuzzGetMany, 5, 1 | fuzzManyShort<<4, fuzzGetMany, 7, 3 | fuzzManyDelete<<4,
		fuzzGetMany, 9, 2 | 2<<2 | fuzzManySet<<4, fuzzGetMany, 9, 3 | 1<<2,
	}},
	// A batch of events longer than a lookahead run: mixed kinds and versions.
	{31, []byte{
		fuzzSet, 1, 0, fuzzSet, 2, 0, fuzzSet, 3, 0, fuzzRefill, 4, 0,
		fuzzBatch, 17,
		0, 1, 1 | 3<<2, 2, 2, 3, 3, 0, 0, 4, 0, 5, 2, 6, 0, 7, 0, 8, 0, 9, 0, 10, 0, 11,
		0, 12, 0, 13, 0, 14, 0, 15, 2, 16, 0, 17,
		fuzzTryGet, 1, 0, fuzzTryGet, 2, 0, fuzzTryGet, 3, 0,
	}},
	// Eviction and a capacity cut, with unowned keys.
	{fuzzUnowned | 2, []byte{
		fuzzSet, 1, 0, fuzzSet, 2, 0, fuzzSet, 3, 0, fuzzGet, 4, 0, fuzzTryGet, 4, 0, fuzzSet, 4, 0,
		fuzzGetMany, 3, 3 | 1<<2, fuzzSetConfig, 0, 0, fuzzTryGet, 1, 0, fuzzSetConfig, 0, 9,
	}},
	// SetConfig sets a bound over values stored without one (vouched for by
	// checkpoints only), unowns a cached key, then lifts both; a checkpoint
	// cut after its Apply counts from the Apply.
	{8, []byte{
		fuzzSet, 4, 0, fuzzSet, 1, 0, fuzzAdvance, 0, 5, fuzzSetConfig, 0, 8 | 1<<5 | 1<<6,
		fuzzTryGet, 4, 0, fuzzTryGet, 1, 0, fuzzCheckpoint, 0, 1 | 3<<3, fuzzTryGet, 1, 0,
		fuzzRefill, 4, 2, fuzzAdvance, 0, 4, fuzzTryGet, 1, 0, fuzzSetConfig, 0, 8, fuzzTryGet, 4, 0,
	}},
	// GetValid accepting a value, rejecting it, and loading with a failing loader.
	{fuzzBound | 4, []byte{
		fuzzSet, 1, 0, fuzzGetValid, 1, 0, fuzzGetValid, 1, 1, fuzzTryGet, 1, 0,
		fuzzGetValid, 2, 2 << 1, fuzzAdvance, 0, 5, fuzzGetValid, 1, 1,
	}},
}

// keyState says what the model knows of a key's presence in the cache.
type keyState uint8

const (
	absent  keyState = iota // not cached
	present                 // cached, with the model's value
	maybe                   // cached with the model's value, or evicted
)

// modelEntry is the model of one key: val, version and freshAt describe the
// entry the cache holds when state is present or maybe.
type modelEntry struct {
	state   keyState
	val     int
	version uint64
	freshAt int64 // clock offset from New at which the value was vouched fresh
}

// span is the range a counter may have moved in a step.
type span struct{ lo, hi uint64 }

func (s *span) exact(n uint64) { s.lo += n; s.hi += n }
func (s *span) upTo(n uint64)  { s.hi += n }

// expected holds what a step may have moved the counters by.
type expected struct {
	hits, misses, loads, loadErrors, notOwned, dropped, checkpoints span
	invalidations, refills, staleBypass                             span
}

type cacheModel[V comparable] struct {
	t        *testing.T
	c        *cache.Cache[byte, V]
	enc      func(int) V
	clock    *fakeClock
	base     int64
	bound    time.Duration
	owns     func(byte) bool
	capacity int

	keys      [fuzzKeys]modelEntry
	lastCP    int64 // clock offset of the newest checkpoint, as the cache counts it (none: unvouched)
	watermark uint64
	seq       int // the last value handed out: each store is of a new value
	exp       expected
	prev      cache.Stats
	step      int
}

func runCacheModel[V comparable](t *testing.T, conf uint8, ops []byte, enc func(int) V) {
	m := &cacheModel[V]{t: t, enc: enc, clock: &fakeClock{}, capacity: int(conf%32) + 1, lastCP: unvouched}
	m.clock.Advance(time.Hour) // so that a Cut can be before New
	m.base = m.clock.ns.Load()
	if conf&fuzzBound != 0 {
		m.bound = fuzzBoundD
	}
	if conf&fuzzUnowned != 0 {
		m.owns = ownsFifth
	}
	c, err := cache.New[byte, V](m.config())
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	m.c = c
	in := fuzzInput{b: ops}
	for in.more() {
		m.step++
		op, k, arg := in.next()%fuzzOps, in.next()%fuzzKeys, byte(0)
		if op != fuzzBatch {
			arg = in.next()
		}
		m.run(op, k, arg, &in)
		m.check(op)
		if t.Failed() {
			t.FailNow()
		}
	}
}

// fuzzInput reads a program; bytes past its end read as 0.
type fuzzInput struct {
	b []byte
	i int
}

func (in *fuzzInput) more() bool { return in.i < len(in.b) }

func (in *fuzzInput) next() byte {
	if in.i >= len(in.b) {
		return 0
	}
	in.i++
	return in.b[in.i-1]
}

func (m *cacheModel[V]) config() cache.Config[byte] {
	return cache.Config[byte]{Capacity: m.capacity, MaxStaleness: m.bound, Owns: m.owns, Clock: m.clock}
}

func (m *cacheModel[V]) now() int64 { return m.clock.ns.Load() - m.base }

// vouch is the freshness a value known current now gets: the cache reads no
// clock without a bound, and only checkpoints vouch for such a value.
func (m *cacheModel[V]) vouch() int64 {
	if m.bound == 0 {
		return unvouched
	}
	return m.now()
}

func (m *cacheModel[V]) owned(k byte) bool { return m.owns == nil || m.owns(k) }

// fresh reports whether the model's entry of k is within the staleness bound.
func (m *cacheModel[V]) fresh(k byte) bool {
	at := max(m.lastCP, m.keys[k].freshAt)
	return m.bound == 0 || at != unvouched && m.now()-at <= int64(m.bound)
}

func (m *cacheModel[V]) newValue() int {
	m.seq++
	return m.seq
}

func (m *cacheModel[V]) errorf(format string, args ...any) {
	m.t.Helper()
	m.t.Errorf("step %d: "+format, append([]any{m.step}, args...)...)
}

// store records a value the cache stores for k (Set or a fill).
func (m *cacheModel[V]) store(k byte, v int, freshAt int64) {
	m.keys[k] = modelEntry{state: present, val: v, freshAt: freshAt}
}

// lookup is how a read of k (Get, TryGet, GetMany, GetValid) must go: an
// unowned key is not looked up; an absent or stale key misses; a present key
// within the bound hits. It counts the read as the cache must, and returns
// whether it must hit.
func (m *cacheModel[V]) lookup(k byte) (hit bool) {
	e := &m.keys[k]
	switch {
	case !m.owned(k):
		m.exp.notOwned.exact(1)
		return false
	case e.state == absent:
	case !m.fresh(k):
		if e.state == present {
			m.exp.staleBypass.exact(1)
		} else {
			m.exp.staleBypass.upTo(1)
		}
	case e.state == present:
		m.exp.hits.exact(1)
		return true
	default:
		// A maybe key within the bound is resolved by check with Contains
		// after every step, so a read never starts on one.
		m.errorf("key %d: unresolved within the bound", k)
	}
	m.exp.misses.exact(1)
	return false
}

// hit checks a value a read served for k.
func (m *cacheModel[V]) hit(op string, k byte, got V) {
	m.t.Helper()
	e := m.keys[k]
	switch {
	case !m.owned(k):
		m.errorf("%s(%d): hit %v on a key not owned", op, k, got)
	case e.state == absent:
		m.errorf("%s(%d): hit %v on a key not cached", op, k, got)
	case !m.fresh(k):
		m.errorf("%s(%d): hit %v beyond the staleness bound (now %v, checkpoint %v, fresh at %v)",
			op, k, got, time.Duration(m.now()), time.Duration(m.lastCP), time.Duration(e.freshAt))
	case got != m.enc(e.val):
		m.errorf("%s(%d): hit %v, want %v", op, k, got, m.enc(e.val))
	}
}

// invalidate applies a Write without Refill or a Delete of k at version.
func (m *cacheModel[V]) invalidate(k byte, version uint64) {
	e := &m.keys[k]
	if e.state == absent || version != 0 && e.version > version {
		return
	}
	if e.state == present {
		m.exp.invalidations.exact(1)
	} else {
		m.exp.invalidations.upTo(1)
	}
	*e = modelEntry{}
}

// refill applies a Write with Refill of k to v at version.
func (m *cacheModel[V]) refill(k byte, version uint64, v int) {
	if version != 0 && version <= m.watermark { // a replay: invalidates
		m.invalidate(k, version)
		return
	}
	e := &m.keys[k]
	if e.state == absent || version != 0 && e.version > version {
		return
	}
	if e.state == present {
		m.exp.refills.exact(1)
	} else {
		m.exp.refills.upTo(1)
	}
	// Only checkpoints vouch for a refilled value: not the creation of the
	// cache, as the stream may start behind the store.
	e.val, e.version, e.freshAt = v, version, unvouched
}

// cutOffset is the Cut of a Checkpoint by its code (0 to 3): none, 1 or 2
// units before now, or 1 unit after now (a Cut later than the Apply counts
// from the Apply).
func cutOffset(code byte) (time.Duration, bool) {
	switch code % 4 {
	case 1, 2:
		return -time.Duration(code%4) * fuzzUnit, true
	case 3:
		return fuzzUnit, true
	}
	return 0, false
}

// checkpoint applies a Checkpoint at watermark w, whose Cut has code cut
// (cutOffset), and returns the event.
func (m *cacheModel[V]) checkpoint(w uint64, cut byte) cache.Event[byte, V] {
	ev := cache.Event[byte, V]{Kind: cache.Checkpoint, Version: w}
	d, ok := cutOffset(cut)
	if ok {
		ev.Cut = m.clock.Now().Add(d)
	}
	if w < m.watermark {
		return ev
	}
	m.watermark = w
	m.lastCP = max(m.lastCP, m.now()+int64(min(d, 0)))
	m.exp.checkpoints.exact(1)
	return ev
}

// delete calls Delete(k) and checks what it reports.
func (m *cacheModel[V]) delete(k byte) {
	removed := m.c.Delete(k)
	switch st := m.keys[k].state; {
	case removed && st == absent:
		m.errorf("Delete(%d) removed a key not cached", k)
	case !removed && st == present:
		m.errorf("Delete(%d) removed nothing from a cached key", k)
	}
	if removed {
		m.exp.invalidations.exact(1)
	}
	m.keys[k] = modelEntry{}
}

// set calls Set(k) with a new value.
func (m *cacheModel[V]) set(k byte) {
	v := m.newValue()
	m.c.Set(k, m.enc(v))
	if m.owned(k) {
		m.store(k, v, m.vouch())
		return
	}
	// Not owned: invalidated as by Delete.
	switch m.keys[k].state {
	case present:
		m.exp.invalidations.exact(1)
	case absent:
	default:
		m.exp.invalidations.upTo(1)
	}
	m.keys[k] = modelEntry{}
}

func (m *cacheModel[V]) run(op, k, arg byte, in *fuzzInput) {
	switch op {
	case fuzzSet:
		m.set(k)
	case fuzzDelete:
		m.delete(k)
	case fuzzWrite, fuzzDelEvent:
		kind := cache.Write
		if op == fuzzDelEvent {
			kind = cache.Delete
		}
		m.invalidate(k, uint64(arg%8))
		m.c.Apply(cache.Event[byte, V]{Kind: kind, Key: k, Version: uint64(arg % 8)})
	case fuzzRefill:
		v := m.newValue()
		m.refill(k, uint64(arg%8), v)
		m.c.Apply(cache.Event[byte, V]{Kind: cache.Write, Key: k, Version: uint64(arg % 8), Value: m.enc(v), Refill: true})
	case fuzzCheckpoint:
		m.c.Apply(m.checkpoint(uint64(arg%8), arg>>3))
	case fuzzTryGet:
		hit := m.lookup(k)
		got, ok := m.c.TryGet(k)
		if ok {
			m.hit("TryGet", k, got)
		} else if hit {
			m.errorf("TryGet(%d): miss on a cached key within the bound", k)
		}
	case fuzzGet:
		m.get(k, arg%fuzzLoadBehaviours, uint64((arg>>3)%8), nil)
	case fuzzGetValid:
		reject := arg&1 != 0
		m.get(k, (arg>>1)%3, 0, &reject)
	case fuzzGetMany:
		n, step := 1+int(arg%4), int((arg>>2)%4)
		keys := make([]byte, n)
		for i := range keys {
			keys[i] = byte((int(k) + i*step) % fuzzKeys)
		}
		m.getMany(keys, (arg>>4)%fuzzManyBehaviours)
	case fuzzAdvance:
		m.clock.Advance(time.Duration(arg%6) * fuzzUnit)
	case fuzzBatch:
		n := 2 + int(k%19)
		evs := make([]cache.Event[byte, V], n)
		for i := range evs {
			kv, key := in.next(), in.next()%fuzzKeys
			version := uint64((kv >> 2) % 8)
			switch kv % 4 {
			case 0:
				evs[i] = cache.Event[byte, V]{Kind: cache.Write, Key: key, Version: version}
				m.invalidate(key, version)
			case 1:
				v := m.newValue()
				evs[i] = cache.Event[byte, V]{Kind: cache.Write, Key: key, Version: version, Value: m.enc(v), Refill: true}
				m.refill(key, version, v)
			case 2:
				evs[i] = cache.Event[byte, V]{Kind: cache.Delete, Key: key, Version: version}
				m.invalidate(key, version)
			default:
				evs[i] = m.checkpoint(version, kv>>5)
			}
		}
		m.c.Apply(evs...)
	case fuzzSetConfig:
		m.capacity = 1 + int(arg%32)
		m.bound, m.owns = 0, nil
		if arg&(1<<5) != 0 {
			m.bound = fuzzBoundD
		}
		if arg&(1<<6) != 0 {
			m.owns = ownsFifth
		}
		if err := m.c.SetConfig(m.config()); err != nil {
			m.errorf("SetConfig(capacity %d): %v", m.capacity, err)
		}
	}
}
