package cache

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// checkPolicy verifies the queue bookkeeping of p against the nodes in live.
func checkPolicy[K comparable, V any](t *testing.T, p *policy[K, V], live map[K]*node[K, V]) {
	t.Helper()
	count := func(l *list[K, V]) int {
		n := 0
		for e := l.root.next; e != &l.root; e = e.next {
			if e.queue != l.id || e.next.prev != e {
				t.Fatalf("queue %d: node %v has queue %d or broken links", l.id, e.key, e.queue)
			}
			n++
		}
		require.Equal(t, l.len, n, "queue length")
		return n
	}
	total := count(&p.window) + count(&p.probation) + count(&p.protected)
	require.Equal(t, p.size, total)
	require.Equal(t, len(live), total)
	require.LessOrEqual(t, p.size, p.capacity)
	require.GreaterOrEqual(t, p.window.cap, 1)
	require.GreaterOrEqual(t, p.protected.cap, 0)
	for k, n := range live {
		if n.queue == queueNone {
			t.Fatalf("live key %v is in no queue", k)
		}
	}
}

func TestPolicyInvariants(t *testing.T) {
	for _, capacity := range []int{1, 2, 10, 100, 1000} {
		var p policy[int, int]
		p.init(capacity)
		live := map[int]*node[int, int]{}
		r := rand.New(rand.NewPCG(uint64(capacity), 1))
		for i := range 20 * capacity * 11 {
			k := int(r.Int64N(int64(3 * capacity)))
			switch n := live[k]; {
			case n != nil && r.IntN(10) == 0:
				p.remove(n)
				delete(live, k)
			case n != nil:
				p.access(n)
			default:
				n := &node[int, int]{key: k, hash: mix64(uint64(k))}
				p.add(n)
				live[k] = n
				for _, e := range p.evicted {
					require.Equal(t, queueNone, e.queue)
					delete(live, e.key)
				}
				p.evicted = p.evicted[:0]
			}
			if i%97 == 0 || capacity <= 10 {
				checkPolicy(t, &p, live)
			}
			if i == 10*capacity*11 {
				p.setCapacity(max(1, capacity/2))
				for _, e := range p.evicted {
					delete(live, e.key)
				}
				p.evicted = p.evicted[:0]
				checkPolicy(t, &p, live)
			}
		}
		checkPolicy(t, &p, live)
	}
}

// TestPolicyScanResistance: a hot set survives a long scan of one-hit keys
// that it is mixed with, where plain LRU would flush it (each hot key comes
// back only after 200 scan keys, twice the capacity).
func TestPolicyScanResistance(t *testing.T) {
	var p policy[int, int]
	p.init(100)
	live := map[int]*node[int, int]{}
	touch := func(k int) bool {
		if n := live[k]; n != nil {
			p.access(n)
			return true
		}
		n := &node[int, int]{key: k, hash: mix64(uint64(k))}
		p.add(n)
		live[k] = n
		for _, e := range p.evicted {
			delete(live, e.key)
		}
		p.evicted = p.evicted[:0]
		return false
	}
	for range 50 {
		for k := range 50 {
			touch(k)
		}
	}
	for k := 1000; k < 100_000; k++ {
		touch(k)
		if k%4 == 0 {
			touch(k / 4 % 50)
		}
	}
	hits := 0
	for k := range 50 {
		if touch(k) {
			hits++
		}
	}
	assert.GreaterOrEqual(t, hits, 45, "hot keys kept through the scan")
}

func TestSketch(t *testing.T) {
	var s sketch
	assert.Equal(t, 0, s.frequency(1), "uninitialized sketch estimates 0")
	s.increment(1)
	s.ensureCapacity(512)
	for i := range 20 {
		s.increment(mix64(7))
		assert.Equal(t, min(i+1, 15), s.frequency(mix64(7)))
	}
	assert.LessOrEqual(t, s.frequency(mix64(8)), 1)
	for i := range s.sampleSize {
		s.increment(mix64(uint64(i + 100)))
	}
	assert.Less(t, s.frequency(mix64(7)), 15, "counters age by halving")
}
