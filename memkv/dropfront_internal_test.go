package memkv

import (
	"slices"
	"testing"
)

func TestDropFront(t *testing.T) {
	for _, tc := range []struct {
		name      string
		len, cap  int
		drop      int
		wantCap   int // 0: not checked
		wantShare bool
	}{
		{"nothing", 8, 8, 0, 8, true},
		{"one of many: reslice, no copy", 8, 8, 1, 7, true},
		{"half", 8, 8, 4, 4, true},
		{"down to a quarter of the array: copied to a smaller one", 8, 16, 6, 5, false},
		{"all", 8, 8, 8, 1, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			log := make([]*int, tc.len, tc.cap)
			for i := range log {
				v := i
				log[i] = &v
			}
			orig := log
			got := dropFront(log, tc.drop)
			want := orig[tc.drop:tc.len]
			if len(got) != len(want) {
				t.Fatalf("len %d, want %d", len(got), len(want))
			}
			for i := range got {
				if *got[i] != tc.drop+i {
					t.Fatalf("element %d is %d, want %d", i, *got[i], tc.drop+i)
				}
			}
			if tc.wantCap != 0 && cap(got) != tc.wantCap {
				t.Errorf("cap %d, want %d", cap(got), tc.wantCap)
			}
			if shares := len(got) > 0 && &got[0] == &orig[tc.drop]; shares != tc.wantShare && len(got) > 0 {
				t.Errorf("shares the array: %v, want %v", shares, tc.wantShare)
			}
			if i := slices.IndexFunc(orig[:tc.drop], func(p *int) bool { return p != nil }); i >= 0 {
				t.Errorf("dropped element %d still referenced by the array", i)
			}
		})
	}
}
