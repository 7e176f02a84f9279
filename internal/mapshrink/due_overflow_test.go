package mapshrink

import (
	"math"
	"testing"
)

// TestDueHuge: Due compares n with a quarter of peak without overflowing. It
// computed 4*n, which wraps for n above a quarter of the int range, so a
// slice or map at its peak was reported due (4*n negative or 0).
func TestDueHuge(t *testing.T) {
	for _, tc := range []struct {
		n, peak int
		want    bool
	}{
		{math.MaxInt/4 + 1, math.MaxInt/4 + 1, false},
		{math.MaxInt / 2, math.MaxInt, false},
		{math.MaxInt, math.MaxInt, false},
		{math.MaxInt / 4, math.MaxInt, true},
		{math.MaxInt/4 + 1, math.MaxInt, false},
	} {
		if got := Due(tc.n, tc.peak, 64); got != tc.want {
			t.Errorf("Due(%d, %d, 64) = %v, want %v", tc.n, tc.peak, got, tc.want)
		}
	}
}
