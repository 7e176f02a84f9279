package cache

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/internal/mix"
)

// checkPolicy verifies the queue bookkeeping of p against the nodes in live.
func checkPolicy[K comparable](t *testing.T, p *policy[K], live map[K]*node[K]) {
	t.Helper()
	count := func(l *list[K]) int {
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
	require.LessOrEqual(t, p.window.cap+p.protected.cap, p.capacity, "the climber keeps the window and protected within the capacity")
	require.LessOrEqual(t, p.window.len, p.window.cap)
	for k, n := range live {
		if n.queue == queueNone {
			t.Fatalf("live key %v is in no queue", k)
		}
	}
}

func TestPolicyInvariants(t *testing.T) {
	for _, capacity := range []int{1, 2, 10, 100, 1000} {
		var p policy[int]
		p.init(capacity, uint64(capacity))
		live := map[int]*node[int]{}
		r := rand.New(rand.NewPCG(uint64(capacity), 1))
		for i := range 20 * capacity * 11 {
			k := int(r.Int64N(int64(3 * capacity)))
			switch n := live[k]; {
			case n != nil && r.IntN(10) == 0:
				p.remove(n)
				delete(live, k)
			case n != nil:
				p.access(n, 1)
			default:
				n := &node[int]{key: k, hash: mix.Mix64(uint64(k))}
				p.add(n)
				live[k] = n
				for _, e := range p.evicted {
					require.Equal(t, queueNone, e.queue, "an evicted node is in no queue")
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
	var p policy[int]
	p.init(100, 1)
	live := map[int]*node[int]{}
	touch := func(k int) bool {
		if n := live[k]; n != nil {
			p.access(n, 1)
			return true
		}
		n := &node[int]{key: k, hash: mix.Mix64(uint64(k))}
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
		s.increment(mix.Mix64(7))
		assert.Equal(t, min(i+1, 15), s.frequency(mix.Mix64(7)))
	}
	assert.LessOrEqual(t, s.frequency(mix.Mix64(8)), 1)
	for i := range s.sampleSize {
		s.increment(mix.Mix64(uint64(i + 100)))
	}
	assert.Less(t, s.frequency(mix.Mix64(7)), 15, "counters age by halving")
}

// TestSaturatedSkipExact: access skips the sketch increment of a key whose
// counters it found saturated in the current epoch. The skip must change no
// count: a shadow sketch incremented on every add and access, as the policy
// did before the skip, holds the same table, additions and epoch after every
// step, through resets, with a hot set that saturates and a cold tail.
func TestSaturatedSkipExact(t *testing.T) {
	var p policy[int]
	p.init(256, 1)
	var shadow sketch
	live := map[int]*node[int]{}
	r := rand.New(rand.NewPCG(5, 6))
	skipped := 0
	for step := range 300_000 {
		k := int(r.Int64N(4096))
		if r.IntN(3) > 0 {
			k %= 40
		}
		if n := live[k]; n != nil {
			if n.saturated == p.sketch.epoch && p.sketch.table != nil {
				skipped++
			}
			p.access(n, 1)
		} else {
			n = &node[int]{key: k, hash: mix.Mix64(uint64(k))}
			p.add(n)
			live[k] = n
			for _, e := range p.evicted {
				delete(live, e.key)
			}
			p.evicted = p.evicted[:0]
		}
		if p.sketch.table != nil && shadow.table == nil {
			shadow.ensureCapacity(p.capacity)
		}
		shadow.increment(mix.Mix64(uint64(k)))
		if shadow.additions != p.sketch.additions || shadow.epoch != p.sketch.epoch ||
			!slices.Equal(shadow.table, p.sketch.table) {
			t.Fatalf("step %d: the sketch diverged from one incremented on every access", step)
		}
	}
	assert.Greater(t, p.sketch.epoch, uint32(10), "the run spans many resets")
	assert.Greater(t, skipped, 10_000, "hot keys' increments were skipped")
}

// TestPolicyDeterministic: the same seed and accesses evict the same keys.
func TestPolicyDeterministic(t *testing.T) {
	run := func(seed uint64) []int {
		var p policy[int]
		p.init(64, seed)
		live := map[int]*node[int]{}
		var evicted []int
		r := rand.New(rand.NewPCG(3, 4))
		for range 200_000 {
			k := int(r.Int64N(512))
			if r.IntN(4) > 0 {
				k %= 48 // a hot set that saturates its counters
			}
			if n := live[k]; n != nil {
				p.access(n, 1)
				continue
			}
			n := &node[int]{key: k, hash: mix.Mix64(uint64(k))}
			p.add(n)
			live[k] = n
			for _, e := range p.evicted {
				evicted = append(evicted, e.key)
				delete(live, e.key)
			}
			p.evicted = p.evicted[:0]
		}
		return evicted
	}
	a, b := run(1), run(1)
	assert.NotEmpty(t, a)
	assert.True(t, slices.Equal(a, b), "two runs with one seed evicted differently")
}

// TestAdmit: a more frequent candidate always wins; a warm one (frequency at
// least admitHashDoSThreshold) that is not more frequent wins about 1 time in
// 128, the same times for the same seed; a cold one never does.
func TestAdmit(t *testing.T) {
	const draws = 128 * 200
	tests := []struct {
		name              string
		candidate, victim int // accesses counted in the sketch
		wantMin, wantMax  int // admissions out of draws
	}{
		{"more frequent", 3, 2, draws, draws},
		{"cold tie", 2, 2, 0, 0},
		{"cold loser", 1, 5, 0, 0},
		{"warm tie", 8, 8, 100, 320},
		{"warm loser", 7, 15, 100, 320},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			count := func(seed uint64) int {
				var p policy[int]
				p.init(1024, seed)
				p.sketch.ensureCapacity(1024)
				c, v := mix.Mix64(1), mix.Mix64(2)
				for range tt.candidate {
					p.sketch.increment(c)
				}
				for range tt.victim {
					p.sketch.increment(v)
				}
				n := 0
				for range draws {
					if p.admit(c, v) {
						n++
					}
				}
				return n
			}
			got := count(7)
			assert.GreaterOrEqual(t, got, tt.wantMin)
			assert.LessOrEqual(t, got, tt.wantMax)
			assert.Equal(t, got, count(7), "same seed, same draws")
		})
	}
}

// TestClimberSettles: after the window moves, the climber drops the counts
// of the first 1/climberSettleDiv of a sample's length, then counts a whole
// sample before it moves again.
func TestClimberSettles(t *testing.T) {
	var p policy[int]
	p.init(100, 1)
	p.sketch.ensureCapacity(100)
	p.size = 100
	settle := climberMinSample / climberSettleDiv
	steps := []struct {
		name     string
		requests int  // counted since the step before
		moved    bool // adjustStep decided a move
		settling bool
		left     int // counts kept after the step
	}{
		{"a whole sample moves the window", climberMinSample, true, true, 0},
		{"just short of the settling part", settle - 1, false, true, settle - 1},
		{"settling part reached: counts dropped", 1, false, false, 0},
		{"just short of a sample", climberMinSample - 1, false, false, climberMinSample - 1},
		{"a whole sample after the settling part", 1, true, true, 0},
	}
	for _, st := range steps {
		p.adjust = 0
		p.hitsInSample += st.requests / 2
		p.missesInSample += st.requests - st.requests/2
		p.adjustStep()
		assert.Equal(t, st.moved, p.adjust != 0, "%s: adjust = %d", st.name, p.adjust)
		assert.Equal(t, st.settling, p.settling, st.name)
		assert.Equal(t, st.left, p.hitsInSample+p.missesInSample, st.name)
	}
}

// TestClimberSample: the window moves only once a sample holds at least
// climberMinSample requests, even for a small cache whose 10x-capacity sample
// is shorter.
func TestClimberSample(t *testing.T) {
	tests := []struct {
		name     string
		capacity int
		requests int
		moved    bool
	}{
		{"small cache, short sample", 100, 10 * 100, false},
		{"small cache, just below the floor", 100, climberMinSample - 1, false},
		{"small cache, floor reached", 100, climberMinSample, true},
		{"large cache, 10x capacity", 4000, 40_000, true},
		{"large cache, below 10x capacity", 4000, 39_999, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var p policy[int]
			p.init(tt.capacity, 1)
			p.sketch.ensureCapacity(tt.capacity)
			p.size = tt.capacity
			p.hitsInSample = tt.requests / 2
			p.missesInSample = tt.requests - tt.requests/2
			p.adjustStep()
			assert.Equal(t, tt.moved, p.adjust != 0, "adjust = %d", p.adjust)
			assert.Equal(t, tt.moved, p.hitsInSample+p.missesInSample == 0, "sample reset")
		})
	}
}

// TestClimberStepUnderOneEntry pins what the package doc says of small
// caches: the climber's step is 6.25% of the capacity, truncated to whole
// entries, so below a capacity of 16 it is 0 and the window never moves
// (it stays at its floor of one entry), as in Caffeine, whose climber this
// is. From 16 on, a sample whose hit rate fell moves it.
func TestClimberStepUnderOneEntry(t *testing.T) {
	for _, tt := range []struct {
		capacity int
		want     int // the second sample's move
	}{{1, 0}, {2, 0}, {15, 0}, {16, 1}, {32, 2}} {
		var p policy[int]
		p.init(tt.capacity, 1)
		p.sketch.ensureCapacity(tt.capacity)
		p.size = tt.capacity
		sample := func(hits, misses int) {
			p.adjust = 0
			p.hitsInSample, p.missesInSample = hits, misses
			p.adjustStep()
		}
		sample(climberMinSample/2, climberMinSample/2) // a hit rate of 50%
		sample(0, climberMinSample/climberSettleDiv)   // the settling quarter
		sample(0, climberMinSample)                    // the hit rate fell: step back
		assert.Equal(t, tt.want, p.adjust, "capacity %d", tt.capacity)
	}
}
