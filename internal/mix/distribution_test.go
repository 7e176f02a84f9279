package mix

import "testing"

// TestMix64Distribution: the callers take Mix64 of structured inputs and
// keep a few bits: consecutive counts (the cache samples a hit when the top
// shift bits are 0), addresses, multiples of 8 or of 4 KiB (its stripes and
// the gateway's take the top 32 bits), and a remainder (rollout's buckets).
// For each kind of input, the top 8 bits and the remainder mod 100 fall in
// their buckets evenly: the chi-squared statistic stays within about six
// standard deviations of its mean. The inputs are fixed, so this does not
// flake; the identity or a plain multiply fails it.
func TestMix64Distribution(t *testing.T) {
	const n = 1 << 16
	for _, in := range []struct {
		name string
		x    func(i uint64) uint64
	}{
		{"consecutive", func(i uint64) uint64 { return i }},
		{"multiples of 8", func(i uint64) uint64 { return 0xc000010000 + 8*i }},
		{"multiples of 4096", func(i uint64) uint64 { return 0xc000000000 + i<<12 }},
		{"high bits only", func(i uint64) uint64 { return i << 48 }},
	} {
		var top [256]int
		var mod [100]int
		for i := range uint64(n) {
			h := Mix64(in.x(i))
			top[h>>56]++
			mod[h%100]++
		}
		if c := chi2(top[:], n); c > 255+6*22.6 {
			t.Errorf("%s: top 8 bits: chi-squared %.0f over 255 degrees of freedom", in.name, c)
		}
		if c := chi2(mod[:], n); c > 99+6*14.1 {
			t.Errorf("%s: mod 100: chi-squared %.0f over 99 degrees of freedom", in.name, c)
		}
	}
}

// chi2 is Pearson's statistic of counts against an even spread of n.
func chi2(counts []int, n int) float64 {
	want := float64(n) / float64(len(counts))
	s := 0.0
	for _, c := range counts {
		d := float64(c) - want
		s += d * d / want
	}
	return s
}
