package cache

import (
	"context"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"
)

// TestPolicyModel drives caches of capacity 1 to 8 from one goroutine with
// random Sets, Gets, GetManys, GetValids, TryGets, Deletes, change events
// (invalidations and refills) and SetConfigs, and phases in which the test
// holds the policy lock so that Sets defer their new nodes to the stripes
// and hits stay buffered (then Deletes and Sets of those keys before a
// drain). After every step it checks against a model of the keys that may
// be cached, and the policy's structure against the index:
//   - Len never exceeds the capacity, and equals the entries Contains finds;
//   - every cached key is one the model allows, with the model's value;
//   - Evictions grows by exactly the keys that left with no removal, and
//     Invalidations by the removals of cached entries;
//   - every index entry's node is in a queue and alive, every queued node
//     has an entry, nothing stays deferred, and the window stays within
//     1..capacity.
func TestPolicyModel(t *testing.T) {
	for seed := range uint64(32) {
		policyModel(t, seed, 1+int(seed%8), 3000)
	}
}

const policyModelKeys = 20

type policyModelRun struct {
	t        *testing.T
	c        *Cache[int, int]
	r        *rand.Rand
	capacity int
	model    map[int]int // keys that may be cached, with their value
	val      int
	evict    uint64 // evictions the model expects
	inval    uint64 // invalidations the model expects

	deferredSeen int // nodes found deferred at the end of held phases
}

func policyModel(t *testing.T, seed uint64, capacity, steps int) {
	c, err := New[int, int](Config[int]{Capacity: capacity})
	if err != nil {
		t.Fatal(err)
	}
	m := &policyModelRun{t: t, c: c, r: rand.New(rand.NewPCG(seed, 7)), capacity: capacity, model: map[int]int{}}
	for step := range steps {
		k := m.r.IntN(policyModelKeys)
		switch op := m.r.IntN(24); {
		case op < 5:
			m.set(k)
		case op < 8:
			m.get(k)
		case op < 10:
			c.TryGet(k)
		case op < 12:
			m.del(k)
		case op < 13:
			m.capacity = 1 + m.r.IntN(8)
			if err := c.SetConfig(Config[int]{Capacity: m.capacity}); err != nil {
				t.Fatal(err)
			}
		case op < 15:
			m.held()
		case op < 19:
			m.event(k)
		case op < 21:
			// Distinct keys: a key stored twice in one call may be evicted
			// in between, which the model would not see.
			m.getMany([]int{k, (k + 1 + m.r.IntN(5)) % policyModelKeys, (k + 6 + m.r.IntN(5)) % policyModelKeys})
		default:
			m.getValid(k, m.r.IntN(2) == 0)
		}
		if !m.check() {
			t.Fatalf("seed %d, capacity %d: step %d", seed, capacity, step)
		}
	}
	if m.deferredSeen == 0 || m.evict == 0 || m.inval == 0 {
		t.Fatalf("seed %d: %d deferred nodes, %d evictions, %d invalidations: the run missed a path",
			seed, m.deferredSeen, m.evict, m.inval)
	}
}

func (m *policyModelRun) set(k int) {
	m.val++
	m.c.Set(k, m.val)
	m.model[k] = m.val
}

func (m *policyModelRun) get(k int) {
	v, err := m.c.Get(context.Background(), k, func(context.Context) (int, error) {
		m.val++
		return m.val, nil
	})
	if err != nil {
		m.t.Fatal(err)
	}
	m.model[k] = v
}

func (m *policyModelRun) del(k int) {
	_, cached := m.model[k]
	if got := m.c.Delete(k); got != cached {
		m.t.Errorf("Delete(%d) = %v, model: cached %v", k, got, cached)
	}
	if cached {
		m.inval++
	}
	delete(m.model, k)
}

// event applies an invalidation or a refill of k.
func (m *policyModelRun) event(k int) {
	_, cached := m.model[k]
	if m.r.IntN(2) == 0 {
		m.c.Apply(Event[int, int]{Kind: Write, Key: k})
		if cached {
			m.inval++
		}
		delete(m.model, k)
		return
	}
	m.val++
	m.c.Apply(Event[int, int]{Kind: Write, Key: k, Refill: true, Value: m.val})
	if cached {
		m.model[k] = m.val
	}
}

func (m *policyModelRun) getMany(keys []int) {
	vs, err := m.c.GetMany(context.Background(), keys, func(_ context.Context, ks []int) ([]int, error) {
		out := make([]int, len(ks))
		for i := range out {
			m.val++
			out[i] = m.val
		}
		return out, nil
	})
	if err != nil {
		m.t.Fatal(err)
	}
	for i, k := range keys {
		m.model[k] = vs[i]
	}
}

// getValid reads k with a check that rejects every value if reject: a
// cached value is then deleted and k loaded again.
func (m *policyModelRun) getValid(k int, reject bool) {
	_, cached := m.model[k]
	v, err := m.c.GetValid(context.Background(), k, func(int) bool { return !reject }, func(context.Context) (int, error) {
		m.val++
		return m.val, nil
	})
	if err != nil {
		m.t.Fatal(err)
	}
	if cached && reject {
		m.inval++
	}
	m.model[k] = v
}

// held holds the policy lock over a few Sets and TryGets (at most addLen
// inserts, so that no stripe's buffer fills and Set never waits for the lock).
func (m *policyModelRun) held() {
	m.c.mu.Lock()
	for range 1 + m.r.IntN(addLen) {
		k := m.r.IntN(policyModelKeys)
		if m.r.IntN(3) == 0 {
			m.c.TryGet(k)
			continue
		}
		m.set(k)
	}
	m.deferredSeen += int(m.c.deferred.Load())
	m.c.mu.Unlock()
}

// check compares the cache with the model, and the policy with the index.
func (m *policyModelRun) check() bool {
	t, c := m.t, m.c
	n := c.Len()
	if n > m.capacity {
		t.Errorf("Len = %d, capacity %d", n, m.capacity)
	}
	cached := 0
	for k := range policyModelKeys {
		if !c.Contains(k) {
			if _, ok := m.model[k]; ok {
				delete(m.model, k)
				m.evict++
			}
			continue
		}
		cached++
		want, ok := m.model[k]
		if !ok {
			t.Errorf("key %d cached, the model has it deleted", k)
			continue
		}
		e := c.shards[c.hash(k)&(numShards-1)].ix.get(k, c.hash(k))
		if got, _ := c.load(e); got != want {
			t.Errorf("key %d = %d, want %d", k, got, want)
		}
	}
	if cached != n {
		t.Errorf("Len = %d, %d keys cached", n, cached)
	}
	st := c.Stats()
	if st.Evictions != m.evict || st.Invalidations != m.inval || st.Len != n {
		t.Errorf("Stats: Evictions %d Invalidations %d Len %d, want %d %d %d",
			st.Evictions, st.Invalidations, st.Len, m.evict, m.inval, n)
	}
	m.checkStructure(n)
	return !t.Failed()
}

// checkStructure checks that the policy's queues and the index hold the same
// n nodes, all alive, and that the window is within its bounds.
func (m *policyModelRun) checkStructure(n int) {
	t, c := m.t, m.c
	c.mu.Lock()
	defer c.mu.Unlock()
	p := &c.pol
	if p.size != n || p.window.len+p.probation.len+p.protected.len != n {
		t.Errorf("policy size %d, queues %d+%d+%d, Len %d", p.size, p.window.len, p.probation.len, p.protected.len, n)
	}
	if p.window.cap < 1 || p.window.cap > p.capacity || p.protected.cap < 0 || p.window.cap+p.protected.cap > p.capacity {
		t.Errorf("window cap %d, protected cap %d, capacity %d", p.window.cap, p.protected.cap, p.capacity)
	}
	if c.deferred.Load() != 0 {
		t.Errorf("%d nodes still deferred", c.deferred.Load())
	}
	indexed := 0
	for i := range c.shards {
		s := &c.shards[i]
		indexed += s.ix.count
		s.ix.each(func(e *entry[int, int]) {
			if e.p.queue == queueNone || e.p.dead.Load() {
				t.Errorf("key %d: indexed with a node in queue %d, dead %v", e.key, e.p.queue, e.p.dead.Load())
			}
		})
	}
	if indexed != n {
		t.Errorf("index holds %d entries, Len %d", indexed, n)
	}
	for _, l := range []*list[int]{&p.window, &p.probation, &p.protected} {
		for x := l.root.next; x != &l.root; x = x.next {
			s := &c.shards[x.hash&(numShards-1)]
			if s.ix.entryOf(x) == nil || x.dead.Load() {
				t.Errorf("key %d: queued node with no entry (dead %v)", x.key, x.dead.Load())
			}
		}
	}
}

// TestPolicyConservation: writers racing over caches of capacity 1 to 8 Set
// keys none of them Set before, read and Delete some, while one lowers and
// raises the capacity. Their inserts find the policy lock held and defer
// nodes to the stripes. Once they stop, every node created is accounted
// for exactly once: Len + Evictions + Invalidations is the number of Sets,
// Invalidations the Deletes that reported a removal, and the policy and the
// index hold the same live nodes, none left deferred.
func TestPolicyConservation(t *testing.T) {
	const writers, sets = 4, 5000
	for round := range 8 {
		c, err := New[int, int](Config[int]{Capacity: 1 + round})
		if err != nil {
			t.Fatal(err)
		}
		var wg sync.WaitGroup
		var deleted atomic.Uint64
		for w := range writers {
			wg.Go(func() {
				for i := range sets {
					k := w*sets + i
					c.Set(k, i)
					if i%3 == 0 {
						c.TryGet(k)
					}
					if i%5 == 0 && c.Delete(k-2) {
						deleted.Add(1)
					}
					if w == 0 && i%500 == 0 {
						_ = c.SetConfig(Config[int]{Capacity: 1 + (round+i/500)%8})
					}
				}
			})
		}
		wg.Wait()
		n := c.Len()
		st := c.Stats()
		if uint64(n)+st.Evictions+st.Invalidations != writers*sets || st.Invalidations != deleted.Load() {
			t.Fatalf("round %d: Len %d + Evictions %d + Invalidations %d, want %d Sets; %d Deletes removed an entry",
				round, n, st.Evictions, st.Invalidations, writers*sets, deleted.Load())
		}
		(&policyModelRun{t: t, c: c, capacity: st.Capacity}).checkStructure(n)
	}
}
