package shed

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
	"time"
	"unsafe"

	"github.com/stretchr/testify/require"
)

// checkTable holds the table's invariants: n counts the occupied slots, every
// key is found from its home (no empty slot between its home and its slot), and
// the table is at most 3/4 full.
func checkTable(t *testing.T, tb *tenantTable[int], model map[string]uint32) {
	t.Helper()
	n := 0
	for i := range tb.slots {
		sl := &tb.slots[i]
		if sl.h == 0 {
			continue
		}
		n++
		for j := sl.h & tb.mask; int(j) != i; j = (j + 1) & tb.mask {
			require.NotZero(t, tb.slots[j].h, "slot %d (%q) is not reachable from its home", i, sl.key())
		}
	}
	require.Equal(t, n, tb.n)
	require.Equal(t, len(model), tb.n)
	require.LessOrEqual(t, tb.n*4, len(tb.slots)*3)
	for name, h := range model {
		i, ok := tb.find(name, h)
		require.True(t, ok, "%q lost", name)
		require.Equal(t, name, tb.slots[i].t.name)
		require.Equal(t, name, tb.slots[i].key())
	}
}

// TestTenantTableMatchesMap runs random inserts, removals and shrinks against
// a map, with hashes chosen to make long runs that wrap around the end of the
// array, where backward-shift deletion has its corner cases.
func TestTenantTableMatchesMap(t *testing.T) {
	for _, tt := range []struct {
		name string
		hash func(tb *tenantTable[int], k int) uint32
	}{
		{"seeded", func(tb *tenantTable[int], k int) uint32 { return tb.hash(fmt.Sprint("k", k)) }},
		{"five homes", func(_ *tenantTable[int], k int) uint32 { return uint32(k%5)<<1 | 1 }},
		{"homes at the end", func(_ *tenantTable[int], k int) uint32 { return math.MaxUint32 - uint32(k%3)<<1 }},
		{"one home", func(_ *tenantTable[int], k int) uint32 { return 1 }},
	} {
		t.Run(tt.name, func(t *testing.T) {
			tb := newTenantTable[int]()
			model := map[string]uint32{}
			r := rand.New(rand.NewPCG(1, 2))
			for step := range 3000 {
				k := r.IntN(100)
				name := fmt.Sprint("k", k)
				h := tt.hash(&tb, k)
				switch _, kept := model[name]; {
				case !kept && r.IntN(3) > 0:
					_, ok := tb.find(name, h)
					require.False(t, ok)
					sl := tb.insert(name, h, &tenantState[int]{name: name})
					require.Equal(t, name, sl.key())
					model[name] = h
				case kept:
					i, ok := tb.find(name, h)
					require.True(t, ok)
					tb.remove(i)
					delete(model, name)
				}
				if step%97 == 0 {
					tb.shrink()
				}
				if step%7 == 0 {
					checkTable(t, &tb, model)
				}
			}
			for name, h := range model { // empty it
				i, ok := tb.find(name, h)
				require.True(t, ok)
				tb.remove(i)
				delete(model, name)
				checkTable(t, &tb, model)
			}
			tb.shrink()
			require.Len(t, tb.slots, minTableSlots)
		})
	}
}

// TestSlotCounts: a slot's 8-bit counts fold into the tenant's state before
// they would overflow, and a cost too large for them goes to the state
// directly, so the totals stay exact.
func TestSlotCounts(t *testing.T) {
	tests := []struct {
		name      string
		n, cost   uint8 // the slot's counts before
		add       int64
		wantSlotN uint8
	}{
		{"fits", 3, 10, 5, 4},
		{"count would overflow", math.MaxUint8, 10, 5, 1},
		{"cost would overflow", 3, math.MaxUint8 - 2, 5, 1},
		{"cost just fits", 3, math.MaxUint8 - 5, 5, 4},
		{"cost larger than the slot holds", 3, 10, math.MaxUint8 + 1, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st := &tenantState[int]{}
			st.fast[1].n, st.fast[1].cost = 7, 70
			sl := &tenantSlot[int]{t: st}
			sl.fast[1].n, sl.fast[1].cost = tt.n, tt.cost
			sl.admit(1, tt.add)
			n, cost := sl.admitted(1)
			require.Equal(t, 7+int64(tt.n)+1, n)
			require.Equal(t, 70+int64(tt.cost)+tt.add, cost)
			require.Equal(t, tt.wantSlotN, sl.fast[1].n)
			require.Zero(t, sl.fast[0].n)
		})
	}
}

// TestDeferredAdmissions: with a table past directSlots, direct admissions are
// applied in batches, and every reader (stats, a push, a refusal, a config
// change) sees all of them.
func TestDeferredAdmissions(t *testing.T) {
	s, err := NewScheduler[int](Config{Priorities: 3, MaxQueue: 10})
	require.NoError(t, err)
	t0 := time.Unix(1_700_000_000, 0)
	const n = directSlots         // more than 3/4 of directSlots tenants: the table grows past it
	want := map[string][3]int64{} // tenant -> admitted cost per priority
	for i := range n {
		name := fmt.Sprint("t", i)
		s.Admit(t0, name, 0, 1)
		want[name] = [3]int64{1}
	}
	require.Equal(t, n, s.Stats().Tenants)
	require.Greater(t, len(s.tenants.slots), directSlots)

	r := rand.New(rand.NewPCG(3, 4))
	for step := range 5000 {
		name := fmt.Sprint("t", r.IntN(n+100)) // some new tenants too
		p, cost := r.IntN(3), int64(1+r.IntN(5))
		s.Admit(t0, name, p, cost)
		w := want[name]
		w[p] += cost
		want[name] = w
		switch step % 701 { // readers at odd times, with admissions pending
		case 100:
			_, _, err := s.Push(t0, name, p, 1, step)
			require.NoError(t, err)
		case 200:
			s.Refuse(t0, name, 1, ReasonNoCapacity)
		case 300:
			require.NoError(t, s.SetConfig(Config{Priorities: 3, MaxQueue: 10, Weights: map[string]int{name: 2}}))
		}
		if step%997 == 0 || step == 4999 {
			for name, w := range want {
				bs := s.Tenant(nil, name)
				require.Len(t, bs, 3, name)
				for p := range 3 {
					require.Equal(t, w[p], bs[p].AdmittedCost, "%s priority %d", name, p)
				}
			}
		}
	}
	st := s.Stats()
	var sum int64
	for _, b := range s.Buckets(nil) {
		sum += b.AdmittedCost
	}
	require.Equal(t, st.AdmittedCost, sum, "the buckets account for every admission")
	require.Zero(t, s.npend)
}

// TestIdleStamps: IdleTimeout becomes whole stamp units rounded up (so a
// tenant is never reclaimed before it), capped at maxIdleTimeout.
func TestIdleStamps(t *testing.T) {
	const unit = 1 << 20
	tests := []struct {
		give time.Duration
		want stamp
	}{
		{0, 0},
		{1, 1},
		{unit, 1},
		{unit + 1, 2},
		{time.Minute, stamp((int64(time.Minute) + unit - 1) / unit)},
		{maxIdleTimeout, 1<<31 - 1},
		{maxIdleTimeout + 1, 1<<31 - 1},
		{math.MaxInt64, 1<<31 - 1},
	}
	for _, tt := range tests {
		require.Equal(t, tt.want, idleStamps(tt.give), "%v", tt.give)
	}
}

// TestAgeWraps: a tenant's age is right across the stamp's wrap, and a tenant
// is never found idle before IdleTimeout has passed, whatever the clock's
// phase.
func TestAgeWraps(t *testing.T) {
	const unit = 1 << 20
	const idle = 10*unit + 123
	s, err := NewScheduler[int](Config{IdleTimeout: idle})
	require.NoError(t, err)
	for _, base := range []int64{0, (1<<32 - 3) * unit, (1<<32 + 5) * unit, 1 << 62} {
		sl := &tenantSlot[int]{seen: stampOf(base)}
		for _, tt := range []struct {
			elapsed int64
			want    stamp
		}{{0, 0}, {unit - 1, 0}, {unit, 1}, {10 * unit, 10}, {11 * unit, 11}, {1 << 50, 1 << 30}} {
			s.coarse = base + tt.elapsed
			require.Equal(t, tt.want, s.age(sl), "base %d elapsed %d", base, tt.elapsed)
		}
	}
	r := rand.New(rand.NewPCG(5, 6))
	for range 100_000 {
		base, elapsed := r.Int64N(1<<60), r.Int64N(3*idle)
		sl := &tenantSlot[int]{seen: stampOf(base)}
		s.coarse = base + elapsed
		if s.age(sl) > s.cfg.idleStamps {
			require.Greater(t, elapsed, int64(idle), "base %d", base)
		}
		if elapsed > idle+2*unit {
			require.Greater(t, s.age(sl), s.cfg.idleStamps, "late by more than the rounding")
		}
	}
}

// TestLanes: direct admissions of priorities 0 and 1 count in the slot and
// show in the bucket their priority clamps to; others count in their bucket.
func TestLanes(t *testing.T) {
	t0 := time.Unix(1_700_000_000, 0)
	for _, tt := range []struct {
		priorities int
		want       []int64 // admitted cost per bucket after admitting priorities -1, 0, 1, 2, 7 at costs 1, 2, 4, 8, 16
	}{
		{1, []int64{31}},
		{2, []int64{3, 28}},
		{3, []int64{3, 4, 24}},
		{4, []int64{3, 4, 8, 16}},
	} {
		s, err := NewScheduler[int](Config{Priorities: tt.priorities})
		require.NoError(t, err)
		for i, p := range []int{-1, 0, 1, 2, 7} {
			s.Admit(t0, "a", p, int64(1)<<i)
		}
		bs := s.Tenant(nil, "a")
		require.Len(t, bs, tt.priorities)
		for p, w := range tt.want {
			require.Equal(t, w, bs[p].AdmittedCost, "%d priorities, bucket %d", tt.priorities, p)
		}
	}
}

// TestSlotSize: two slots to a cache line (the point of the layout; smaller
// with 32-bit pointers).
func TestSlotSize(t *testing.T) {
	want := uintptr(32)
	if unsafe.Sizeof(uintptr(0)) == 4 {
		want = 24
	}
	require.Equal(t, want, unsafe.Sizeof(tenantSlot[int]{}))
}

// TestTenantStateLayout: what Push and Pop touch of a queued tenant (its
// drain fields and both inline buckets) ends within its first three cache
// lines, and the counters a served request updates within one line
// (bench/shed/README.md, "A queued tenant in three cache lines").
func TestTenantStateLayout(t *testing.T) {
	var ts tenantState[*waiter]
	hot := unsafe.Offsetof(ts.inline) + unsafe.Sizeof(ts.inline)
	require.LessOrEqual(t, hot, uintptr(3*64), "the drain fields and buckets")
	require.LessOrEqual(t, unsafe.Offsetof(ts.counts), uintptr(3*64), "nothing else before them")
	var c counters
	require.LessOrEqual(t, unsafe.Offsetof(c.waitMax)+unsafe.Sizeof(c.waitMax), uintptr(64), "a served request's counters")
}

// TestLongKey: a key whose length does not fit the slot's 32 bits is read
// from the tenant's state, so it is found, and never confused with a
// shorter key (the first 4 GiB of it, say).
func TestLongKey(t *testing.T) {
	tb := newTenantTable[int]()
	h := tb.hash("abc")
	sl := tb.insert("abc", h, &tenantState[int]{name: "abc"})
	sl.name, sl.nlen = nil, longKey // as if "abc" were 4 GiB long
	i, ok := tb.find("abc", h)
	require.True(t, ok)
	require.Equal(t, "abc", tb.slots[i].key())
	_, ok = tb.find("ab", h)
	require.False(t, ok)
	for _, tt := range []struct {
		n    uint64
		want uint32
	}{{0, 0}, {3, 3}, {longKey - 1, longKey - 1}, {longKey, longKey}, {1 << 32, longKey}, {1 << 40, longKey}} {
		require.Equal(t, tt.want, keyLen(tt.n), "%d bytes", tt.n)
	}
	p, n := slotKey("abc")
	require.Equal(t, uint32(3), n)
	require.Equal(t, "abc", unsafe.String(p, n))
}

// TestTenantTableHomesSpread: names hash to every slot, even and odd. The
// mark of an occupied slot was the hash's low bit, which is also the low bit
// of the home index: every name's home was an odd slot, and a probe past it
// went to the next cache line (two 32-byte slots share a line) rather than to
// the home's neighbour in the same line. Found by a review.
func TestTenantTableHomesSpread(t *testing.T) {
	tb := newTenantTable[int]()
	homes := [2]int{}
	for k := range 1000 {
		homes[tb.hash(fmt.Sprint("tenant-", k))&tb.mask&1]++
	}
	require.Greater(t, homes[0], 400, "names homed at even slots")
	require.Greater(t, homes[1], 400, "names homed at odd slots")
}
