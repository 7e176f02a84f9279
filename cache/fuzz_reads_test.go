package cache_test

import (
	"context"
	"errors"
	"slices"

	"github.com/tierkit/tierkit/cache"
)

// The reads of FuzzCache's model (fuzz_test.go): Get, GetValid and GetMany
// with loaders that misbehave, and the check after every step.

// get runs Get(k), or GetValid(k) when reject is not nil, with a loader that
// does what behaviour says (fuzzLoad*), using version for its events.
func (m *cacheModel[V]) get(k, behaviour byte, version uint64, reject *bool) {
	op := "Get"
	if reject != nil {
		op = "GetValid"
	}
	// GetValid checks a value it would serve, and only that one.
	var wantChecked []V
	if reject != nil && m.owned(k) && m.keys[k].state == present && m.fresh(k) {
		wantChecked = []V{m.enc(m.keys[k].val)}
	}
	var hit bool
	if len(wantChecked) > 0 && *reject {
		// The check rejects the value: its entry is deleted and the read is
		// a miss that loads.
		m.exp.misses.exact(1)
		m.exp.invalidations.exact(1)
		m.keys[k] = modelEntry{}
	} else {
		hit = m.lookup(k)
	}
	var checked []V
	valid := func(v V) bool {
		checked = append(checked, v)
		return !*reject
	}
	startedAt := m.vouch()
	var (
		calls       int
		loaded      int
		invalidated bool
	)
	load := func(context.Context) (V, error) {
		calls++
		switch behaviour {
		case fuzzLoadError:
			return m.enc(0), errFuzzLoad
		case fuzzLoadSet:
			m.set(k)
			invalidated = true // a Set of a key not owned invalidates it too
		case fuzzLoadDelete:
			m.delete(k)
			invalidated = true
		case fuzzLoadWrite:
			m.invalidate(k, version)
			m.c.Apply(cache.Event[byte, V]{Kind: cache.Write, Key: k, Version: version})
			invalidated = true
		case fuzzLoadRefill:
			v := m.newValue()
			m.refill(k, version, v)
			m.c.Apply(cache.Event[byte, V]{Kind: cache.Write, Key: k, Version: version, Value: m.enc(v), Refill: true})
			invalidated = true
		case fuzzLoadAdvance:
			m.clock.Advance(fuzzUnit)
		}
		loaded = m.newValue()
		return m.enc(loaded), nil
	}
	var (
		got V
		err error
	)
	if reject != nil {
		got, err = m.c.GetValid(context.Background(), k, valid, load)
	} else {
		got, err = m.c.Get(context.Background(), k, load)
	}
	if !slices.Equal(checked, wantChecked) {
		m.errorf("GetValid(%d): checked %v, want %v", k, checked, wantChecked)
	}
	switch {
	case calls > 1:
		m.errorf("%s(%d): loader called %d times", op, k, calls)
	case hit && calls > 0:
		m.errorf("%s(%d): loader called on a cached key within the bound", op, k)
	case hit && err != nil:
		m.errorf("%s(%d) on a hit: %v", op, k, err)
	case hit:
		m.hit(op, k, got)
	case calls == 0:
		m.errorf("%s(%d): a miss did not call the loader (got %v, %v)", op, k, got, err)
	case behaviour == fuzzLoadError:
		m.exp.loads.exact(1)
		m.exp.loadErrors.exact(1)
		if !errors.Is(err, errFuzzLoad) {
			m.errorf("%s(%d) with a failing loader: %v, %v", op, k, got, err)
		}
	default:
		m.exp.loads.exact(1)
		if err != nil || got != m.enc(loaded) {
			m.errorf("%s(%d) = %v, %v; the loader returned %v", op, k, got, err, m.enc(loaded))
		}
		switch {
		case invalidated:
			m.exp.dropped.exact(1)
		case m.owned(k):
			m.store(k, loaded, startedAt)
		}
	}
}

// getMany runs GetMany(keys) with a bulk loader that does what behaviour
// says (fuzzMany*).
func (m *cacheModel[V]) getMany(keys []byte, behaviour byte) {
	var wantMissed []byte
	hits := make([]bool, len(keys))
	for i, k := range keys {
		hits[i] = m.lookup(k)
		if !hits[i] {
			wantMissed = append(wantMissed, k)
		}
	}
	// Hits are served from the entries as they were before the load.
	before := m.keys
	startedAt := m.vouch()
	var (
		calls       int
		gotMissed   []byte
		loaded      []int
		invalidated byte
		inv         bool
	)
	load := func(_ context.Context, miss []byte) ([]V, error) {
		calls++
		gotMissed = slices.Clone(miss)
		switch behaviour {
		case fuzzManyError:
			return nil, errFuzzLoad
		case fuzzManyDelete:
			invalidated, inv = miss[0], true
			m.delete(miss[0])
		case fuzzManySet:
			invalidated, inv = miss[0], true
			m.set(miss[0])
		}
		n := len(miss)
		if behaviour == fuzzManyShort {
			n++
		}
		out := make([]V, n)
		loaded = make([]int, n)
		for i := range out {
			loaded[i] = m.newValue()
			out[i] = m.enc(loaded[i])
		}
		return out, nil
	}
	vs, err := m.c.GetMany(context.Background(), keys, load)
	if !slices.Equal(gotMissed, wantMissed) {
		m.errorf("GetMany(%v): the loader got %v, want the misses %v", keys, gotMissed, wantMissed)
		return
	}
	if calls != min(len(wantMissed), 1) {
		m.errorf("GetMany(%v): loader called %d times for %d misses", keys, calls, len(wantMissed))
		return
	}
	if calls == 0 {
		m.checkMany(keys, hits, vs, err, before, nil)
		return
	}
	m.exp.loads.exact(1)
	if behaviour == fuzzManyError || behaviour == fuzzManyShort {
		m.exp.loadErrors.exact(1)
		if err == nil || behaviour == fuzzManyError && !errors.Is(err, errFuzzLoad) {
			m.errorf("GetMany(%v) with a failing loader: %v, %v", keys, vs, err)
		}
		return
	}
	m.checkMany(keys, hits, vs, err, before, loaded)
	j := 0
	for i, k := range keys {
		if hits[i] {
			continue
		}
		switch {
		case inv && k == invalidated:
			m.exp.dropped.exact(1)
		case m.owned(k):
			m.store(k, loaded[j], startedAt)
		}
		j++
	}
}

// checkMany checks GetMany's values: the entries' as they were before for
// hits, the loaded ones in order for misses.
func (m *cacheModel[V]) checkMany(keys []byte, hits []bool, vs []V, err error, before [fuzzKeys]modelEntry, loaded []int) {
	if err != nil || len(vs) != len(keys) {
		m.errorf("GetMany(%v) = %v, %v", keys, vs, err)
		return
	}
	j := 0
	for i, k := range keys {
		if hits[i] {
			if want := m.enc(before[k].val); vs[i] != want {
				m.errorf("GetMany(%v)[%d]: hit %v, want %v", keys, i, vs[i], want)
			}
			continue
		}
		if want := m.enc(loaded[j]); vs[i] != want {
			m.errorf("GetMany(%v)[%d] = %v, the loader returned %v", keys, i, vs[i], want)
		}
		j++
	}
}

// check compares the cache with the model after a step, then resolves what
// the step left uncertain.
func (m *cacheModel[V]) check(op byte) {
	s := m.c.Stats()
	p := m.prev
	counters := []struct {
		name      string
		now, prev uint64
		want      span
	}{
		{"Hits", s.Hits, p.Hits, m.exp.hits},
		{"Misses", s.Misses, p.Misses, m.exp.misses},
		{"Loads", s.Loads, p.Loads, m.exp.loads},
		{"LoadErrors", s.LoadErrors, p.LoadErrors, m.exp.loadErrors},
		{"NotOwned", s.NotOwned, p.NotOwned, m.exp.notOwned},
		{"DroppedFills", s.DroppedFills, p.DroppedFills, m.exp.dropped},
		{"Checkpoints", s.Checkpoints, p.Checkpoints, m.exp.checkpoints},
		{"Invalidations", s.Invalidations, p.Invalidations, m.exp.invalidations},
		{"Refills", s.Refills, p.Refills, m.exp.refills},
		{"StaleBypass", s.StaleBypass, p.StaleBypass, m.exp.staleBypass},
		{"Coalesced", s.Coalesced, p.Coalesced, span{}},
		{"Evictions", s.Evictions, p.Evictions, span{0, ^uint64(0)}},
	}
	for _, c := range counters {
		if c.now < c.prev {
			m.errorf("op %d: Stats.%s went down from %d to %d", op, c.name, c.prev, c.now)
			continue
		}
		if d := c.now - c.prev; d < c.want.lo || d > c.want.hi {
			m.errorf("op %d: Stats.%s moved by %d, want %d..%d", op, c.name, d, c.want.lo, c.want.hi)
		}
	}
	if s.Watermark != m.watermark {
		m.errorf("op %d: Stats.Watermark %d, want %d", op, s.Watermark, m.watermark)
	}
	if s.Capacity != m.capacity {
		m.errorf("op %d: Stats.Capacity %d, want %d", op, s.Capacity, m.capacity)
	}
	m.exp = expected{}
	m.prev = s

	// An eviction may have dropped any cached key: a present one becomes
	// maybe. Contains tells, within the bound, whether a key is cached.
	evicted := s.Evictions > p.Evictions
	var nPresent, nMaybe int
	for k := range byte(fuzzKeys) {
		e := &m.keys[k]
		if e.state == present && evicted {
			e.state = maybe
		}
		fresh := m.owned(k) && m.fresh(k)
		in := m.c.Contains(k)
		switch {
		case in && (e.state == absent || !fresh):
			m.errorf("op %d: Contains(%d) on a key not cached, beyond the bound or not owned", op, k)
		case !in && e.state == present && fresh:
			m.errorf("op %d: key %d, cached, was lost with no eviction counted", op, k)
		case e.state == maybe && fresh && in:
			e.state = present
		case e.state == maybe && fresh:
			*e = modelEntry{}
		}
		switch e.state {
		case present:
			nPresent++
		case maybe:
			nMaybe++
		}
	}
	if l := m.c.Len(); l > m.capacity || l < nPresent || l > nPresent+nMaybe {
		m.errorf("op %d: Len %d, capacity %d, the model holds %d keys and maybe %d more", op, l, m.capacity, nPresent, nMaybe)
	}
	if s.Len > m.capacity {
		m.errorf("op %d: Stats.Len %d over capacity %d", op, s.Len, m.capacity)
	}
}
