package mapshrink

import (
	"maps"
	"math"
	"testing"
)

func TestDue(t *testing.T) {
	for _, tc := range []struct {
		n, peak, min int
		want         bool
	}{
		{0, 0, 64, false},       // never held enough
		{16, 63, 64, false},     // below min
		{16, 64, 64, true},      // a quarter of the peak left
		{17, 64, 64, false},     // more than a quarter left
		{0, 1 << 20, 64, true},  // emptied after a burst
		{100, 100, 64, false},   // at its peak
		{256, 1024, 256, true},  // the cache's minimum
		{257, 1024, 256, false}, // just over a quarter
	} {
		if got := Due(tc.n, tc.peak, tc.min); got != tc.want {
			t.Errorf("Due(%d, %d, %d) = %v, want %v", tc.n, tc.peak, tc.min, got, tc.want)
		}
	}
}

func TestRebuildKeepsEntries(t *testing.T) {
	type rec struct{ n int }
	m := map[string]*rec{}
	for i := range 1000 {
		m[string(rune('a'+i%26))+string(rune(i))] = &rec{i}
	}
	for k := range m {
		if m[k].n%10 != 0 {
			delete(m, k)
		}
	}
	r := Rebuild(m)
	if !maps.Equal(m, r) { // same keys, same pointers
		t.Fatalf("rebuilt map differs: %d keys against %d", len(r), len(m))
	}
	r["new"] = &rec{-1}
	if _, ok := m["new"]; ok {
		t.Fatal("the rebuilt map shares storage with the old one")
	}
}

// TestRebuildKeepsUnequalKeys: a key not equal to itself (a NaN) can be in
// a map once per insert, and no lookup finds it; batcher's shards hold such
// groups with batches pending. Rebuild keeps every one of them, with its
// value: a copy through lookups, or one that deduplicated keys, would drop
// them.
func TestRebuildKeepsUnequalKeys(t *testing.T) {
	nan := math.NaN()
	m := map[float64]int{1: 1}
	for i := range 3 {
		m[nan] = 10 + i
	}
	r := Rebuild(m)
	if len(r) != 4 {
		t.Fatalf("rebuilt map holds %d entries, want 4", len(r))
	}
	sum := 0
	for _, v := range r {
		sum += v
	}
	if sum != 1+10+11+12 {
		t.Fatalf("rebuilt map's values sum to %d, want %d", sum, 1+10+11+12)
	}
}

// TestRebuildAmortized: used as its callers use it (the peak raised on each
// insert, Due asked on each delete, the peak reset to what is left after a
// Rebuild), the rebuilds of a map that grows and shrinks in bursts copy at
// most a third of the keys deleted, so a delete stays amortized constant
// time and Due does not make a hot path copy the map over and over.
func TestRebuildAmortized(t *testing.T) {
	m := map[int]int{} // holds the keys lo to next-1
	peak, lo, next, deletes, copies := 0, 0, 0, 0, 0
	rng := uint64(1)
	for burst := range 200 {
		rng = rng*6364136223846793005 + 1442695040888963407
		size := int(rng>>40) % 5000
		for len(m) < size { // grow to size
			m[next] = burst
			next++
			peak = max(peak, len(m))
		}
		for len(m) > size*int(rng>>60)/16 { // shrink to a random fraction of it
			delete(m, lo)
			lo++
			deletes++
			if Due(len(m), peak, 64) {
				copies += len(m)
				m, peak = Rebuild(m), len(m)
			}
		}
	}
	if deletes == 0 || 3*copies > deletes {
		t.Fatalf("%d keys copied for %d deleted: more than a third", copies, deletes)
	}
}
