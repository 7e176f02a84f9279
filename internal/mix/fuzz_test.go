package mix

import "testing"

// FuzzMix64Bijection: the package doc promises a bijection on uint64, so
// distinct keys (the cache's salted integer keys, rollout's hashed units)
// never collide after mixing. unmix undoes each step of Mix64; for any x,
// unmix(Mix64(x)) is x, so no two inputs share an output.
func FuzzMix64Bijection(f *testing.F) {
	for _, x := range []uint64{0, 1, 0x9e3779b97f4a7c15, 1 << 63, ^uint64(0)} {
		f.Add(x)
	}
	f.Fuzz(func(t *testing.T, x uint64) {
		if got := unmix(Mix64(x)); got != x {
			t.Fatalf("unmix(Mix64(%#x)) = %#x", x, got)
		}
	})
}

// unmix is the inverse of Mix64: each xorshift is undone by repeating it
// until the shifted bits run out, each odd multiplier by its inverse mod 2^64.
func unmix(x uint64) uint64 {
	x = unshift(x, 31)
	x *= inverse(0x94d049bb133111eb)
	x = unshift(x, 27)
	x *= inverse(0xbf58476d1ce4e5b9)
	return unshift(x, 30)
}

// unshift inverts x ^= x >> s.
func unshift(x uint64, s uint) uint64 {
	y := x
	for k := s; k < 64; k += s {
		y = x ^ y>>s
	}
	return y
}

// inverse returns the inverse of an odd a mod 2^64, by Newton's iteration
// (each step doubles the bits that are right; a is right to 3 bits).
func inverse(a uint64) uint64 {
	y := a
	for range 5 {
		y *= 2 - a*y
	}
	return y
}
