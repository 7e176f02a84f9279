package mapshrink

import (
	"maps"
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
