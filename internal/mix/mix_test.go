package mix

import (
	"math/bits"
	"testing"
)

// The published splitmix64 sequence from seed 0: its n-th output is the
// finalizer of n times the golden-ratio increment. Placement in hashring and
// rollout depends on these values not changing.
func TestMix64Vectors(t *testing.T) {
	const gamma = 0x9e3779b97f4a7c15
	for _, tc := range []struct {
		n    uint64
		want uint64
	}{
		{1, 0xe220a8397b1dcdaf},
		{2, 0x6e789e6aa1b965f4},
		{3, 0x06c45d188009454f},
	} {
		if got := Mix64(tc.n * gamma); got != tc.want {
			t.Errorf("Mix64(%d*gamma) = %#x, want %#x", tc.n, got, tc.want)
		}
	}
	if got := Mix64(0); got != 0 {
		t.Errorf("Mix64(0) = %#x, want 0", got)
	}
}

// TestMix64Avalanche: flipping one input bit flips between a quarter and
// three quarters of the output bits on average, for every input bit.
func TestMix64Avalanche(t *testing.T) {
	const samples = 2000
	for bit := range 64 {
		flips := 0
		x := uint64(0x243f6a8885a308d3)
		for range samples {
			x = x*6364136223846793005 + 1442695040888963407
			flips += bits.OnesCount64(Mix64(x) ^ Mix64(x^1<<bit))
		}
		if mean := float64(flips) / samples; mean < 16 || mean > 48 {
			t.Errorf("bit %d: %.1f output bits flipped on average", bit, mean)
		}
	}
}

func BenchmarkMix64(b *testing.B) {
	b.ReportAllocs()
	var s uint64
	for i := range uint64(b.N) {
		s += Mix64(i)
	}
	sink = s
}

var sink uint64
