package cache_test

import (
	"context"
	"math/rand/v2"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/cache"
)

// TestStressModel races writers (store commits delivered as Write, refill and
// Delete events, some also Set through the cache), a stream that delivers the
// events late and checkpoints honestly (with silent phases of 4x the bound),
// SetConfig swaps of capacity and Owns, and readers (Get with loads that are
// sometimes slower than the bound, TryGet, GetMany, Delete), against a serial
// model of the store: per key, the time each version was committed. Every
// read is checked against what the contract lets a reader see:
//   - the value is one the store held for that key (never another key's);
//   - it is no older than a version whose event was applied before the read
//     started (no stale set);
//   - the version after it, if any, was not committed more than the bound
//     before the read started (the staleness bound: a served value reflects
//     every change committed before t - B).
//
// Word values (updated in place) and boxed ones (a new entry per update).
func TestStressModel(t *testing.T) {
	t.Run("word", func(t *testing.T) { stressModel(t, wordValue{}) })
	t.Run("boxed", func(t *testing.T) { stressModel(t, boxedValue{}) })
}

const (
	modelKeys     = 48
	modelCapacity = 16
	modelTick     = 10 * time.Microsecond
	modelBound    = time.Millisecond // 100 ticks
	modelMaxLag   = 150              // ticks an event may wait before delivery: 1.5x the bound
	modelSilent   = 2000             // stream steps between silent phases
	modelSilence  = 400              // steps of a silent phase: 4x the bound
)

// modelStore is the serial reference: the store's commits and the events not
// yet delivered, in commit order, under one lock with the clock.
type modelStore struct {
	mu      sync.Mutex
	clock   fakeClock
	commits [modelKeys][]int64 // commits[k][i]: clock time version i+1 of k was committed
	seq     uint64             // commits so far: the events' versions
	queue   []modelEvent
}

type modelEvent struct {
	key     int
	version uint64 // per key
	seq     uint64 // global: the watermark
	at      int64
	kind    int // 0 invalidate, 1 refill, 2 delete
}

// commit makes a new version of k and queues its event.
func (m *modelStore) commit(k, kind int) uint64 {
	m.mu.Lock()
	defer m.mu.Unlock()
	now := m.clock.ns.Load()
	m.commits[k] = append(m.commits[k], now)
	m.seq++
	v := uint64(len(m.commits[k]))
	m.queue = append(m.queue, modelEvent{key: k, version: v, seq: m.seq, at: now, kind: kind})
	return v
}

// current returns k's newest version.
func (m *modelStore) current(k int) uint64 {
	m.mu.Lock()
	defer m.mu.Unlock()
	return uint64(len(m.commits[k]))
}

// supersededAt returns when the version after v of k was committed, if it was.
func (m *modelStore) supersededAt(k int, v uint64) (int64, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if v < uint64(len(m.commits[k])) {
		return m.commits[k][v], true
	}
	return 0, false
}

// step advances the clock a tick and takes the events due for delivery, and
// the checkpoint to apply after them (watermark, cut; ok false in silence): every
// change committed before cut has been delivered.
func (m *modelStore) step(lag int, checkpoint bool) (evs []modelEvent, w uint64, cut int64, ok bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.clock.Advance(modelTick)
	now := m.clock.ns.Load()
	n := 0
	for n < len(m.queue) && m.queue[n].at <= now-int64(lag)*int64(modelTick) {
		n++
	}
	evs = append(evs, m.queue[:n]...)
	m.queue = append(m.queue[:0], m.queue[n:]...)
	if !checkpoint {
		return evs, 0, 0, false
	}
	w, cut = m.seq, now
	if len(m.queue) > 0 {
		w, cut = m.queue[0].seq-1, m.queue[0].at
	}
	return evs, w, cut, true
}

func modelValue(k int, v uint64) uint64 { return v<<8 | uint64(k) }

func stressModel[V any](t *testing.T, cd codec[V]) {
	m := &modelStore{}
	c := newCache[int, V](t, cache.Config[int]{Capacity: modelCapacity, MaxStaleness: modelBound, Clock: &m.clock})
	var applied [modelKeys]atomic.Uint64
	var keyMu [modelKeys]sync.Mutex
	var stop atomic.Bool
	var bg sync.WaitGroup
	bg.Go(func() { modelStream(t, m, c, cd, &applied, &stop) })
	for w := range 2 {
		bg.Go(func() { modelWriter(m, c, cd, &keyMu, &stop, uint64(w)) })
	}
	var readers sync.WaitGroup
	for id := range 3 {
		readers.Go(func() { modelReader(t, m, c, cd, &applied, &stop, uint64(id)) })
	}
	readers.Wait()
	stop.Store(true)
	bg.Wait()
	s := c.Stats()
	assert.Positive(t, s.Hits)
	assert.Positive(t, s.Refills)
	assert.Positive(t, s.StaleBypass)
	assert.Positive(t, s.DroppedFills)
	t.Logf("stats: %+v", s)
}

// modelStream delivers the queued events in order, late by up to modelMaxLag
// ticks, checkpoints every 4 steps outside silent phases, and swaps the
// configuration now and then.
func modelStream[V any](t *testing.T, m *modelStore, c *cache.Cache[int, V], cd codec[V], applied *[modelKeys]atomic.Uint64, stop *atomic.Bool) {
	r := rand.New(rand.NewPCG(7, 8))
	evenOwns := func(k int) bool { return k%2 == 0 }
	lag := 0
	for i := 0; !stop.Load(); i++ {
		if i%200 == 0 { // a delivery delay held for a while: a slow stream
			lag = r.IntN(modelMaxLag + 1)
		}
		evs, w, cut, ok := m.step(lag, i%4 == 0 && i%modelSilent >= modelSilence)
		for _, e := range evs {
			ev := cache.Event[int, V]{Kind: cache.Write, Key: e.key, Version: e.seq}
			switch e.kind {
			case 1:
				ev.Refill, ev.Value = true, cd.enc(modelValue(e.key, e.version))
			case 2:
				ev.Kind = cache.Delete
			}
			c.Apply(ev)
			applied[e.key].Store(e.version)
		}
		if ok {
			c.Apply(cache.Event[int, V]{Kind: cache.Checkpoint, Version: w, Cut: time.Unix(0, cut)})
		}
		if i%500 == 499 {
			cfg := cache.Config[int]{Capacity: modelCapacity/2 + r.IntN(modelCapacity), MaxStaleness: modelBound}
			if r.IntN(2) == 0 {
				cfg.Owns = evenOwns
			}
			require.NoError(t, c.SetConfig(cfg))
		}
		runtime.Gosched() // let the readers and writers run between ticks
	}
}

// modelWriter commits new versions; a quarter of them it also Sets through
// the cache, holding the key so that no newer version commits before the
// Set returns (the Set vouches for a value current when it runs).
func modelWriter[V any](m *modelStore, c *cache.Cache[int, V], cd codec[V], keyMu *[modelKeys]sync.Mutex, stop *atomic.Bool, seed uint64) {
	r := rand.New(rand.NewPCG(seed, 9))
	for !stop.Load() {
		m.mu.Lock()
		backlog := len(m.queue)
		m.mu.Unlock()
		if backlog > 32 {
			runtime.Gosched() // let the stream catch up
			continue
		}
		k := r.IntN(modelKeys)
		kind := 0
		switch r.IntN(8) {
		case 0:
			kind = 2
		case 1, 2:
			kind = 1
		}
		keyMu[k].Lock()
		v := m.commit(k, kind)
		if kind != 2 && r.IntN(4) == 0 {
			c.Set(k, cd.enc(modelValue(k, v)))
		}
		keyMu[k].Unlock()
	}
}

// modelReader reads and checks every value read against the model.
func modelReader[V any](t *testing.T, m *modelStore, c *cache.Cache[int, V], cd codec[V], applied *[modelKeys]atomic.Uint64, stop *atomic.Bool, seed uint64) {
	r := rand.New(rand.NewPCG(seed, 10))
	load := func(k int) V {
		v := m.current(k)
		if r.IntN(16) == 0 { // slower than the bound, sometimes
			until := m.clock.ns.Load() + r.Int64N(2*int64(modelBound))
			for m.clock.ns.Load() < until && !stop.Load() {
				runtime.Gosched()
			}
		}
		return cd.enc(modelValue(k, v))
	}
	for range 20_000 {
		k := r.IntN(modelKeys)
		t0 := m.clock.ns.Load()
		floor := applied[k].Load()
		var x V
		ok := true
		switch r.IntN(10) {
		case 0:
			x, ok = c.TryGet(k)
		case 1:
			c.Delete(k)
			continue
		case 2:
			xs, err := c.GetMany(context.Background(), []int{k}, func(_ context.Context, ks []int) ([]V, error) {
				return []V{load(ks[0])}, nil
			})
			require.NoError(t, err)
			x = xs[0]
		default:
			var err error
			x, err = c.Get(context.Background(), k, func(context.Context) (V, error) { return load(k), nil })
			require.NoError(t, err)
		}
		if ok && !modelCheck(t, m, k, cd.dec(x), floor, t0) {
			return
		}
	}
}

// modelCheck reports whether the value x read for k, by a read that started
// at t0 after the event of version floor was applied, is one the contract
// allows.
func modelCheck(t *testing.T, m *modelStore, k int, x, floor uint64, t0 int64) bool {
	v := x >> 8
	if int(x&0xff) != k {
		t.Errorf("key %d: read %#x, a value of key %d", k, x, x&0xff)
		return false
	}
	if v < floor {
		t.Errorf("key %d: read version %d after version %d was applied", k, v, floor)
		return false
	}
	if at, ok := m.supersededAt(k, v); ok && at < t0-int64(modelBound) {
		t.Errorf("key %d: read version %d at %v, superseded at %v (bound %v)", k, v, time.Duration(t0), time.Duration(at), modelBound)
		return false
	}
	return true
}
