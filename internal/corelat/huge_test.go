package corelat

import (
	"math"
	"runtime"
	"testing"
)

// TestRoundTripHugePasses: a round of math.MaxInt passes cannot finish within
// its second, so RoundTrip reports false. The pass counter was an int64 set to
// passes+1, which wrapped negative for math.MaxInt on 64-bit platforms: the
// round ran no pass, its clock never started, and RoundTrip reported 1 ns as
// measured.
func TestRoundTripHugePasses(t *testing.T) {
	if runtime.GOMAXPROCS(0) < 2 {
		t.Skip("needs GOMAXPROCS >= 2")
	}
	if d, ok := RoundTrip(1, math.MaxInt); ok {
		t.Fatalf("RoundTrip(1, MaxInt) reported %v as measured", d)
	}
}
