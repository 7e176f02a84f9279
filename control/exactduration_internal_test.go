package control

import (
	"math/big"
	"regexp"
	"testing"
	"time"
)

// durationPartRE is one number and unit of a string time.ParseDuration accepts.
var durationPartRE = regexp.MustCompile(`([0-9]*\.?[0-9]*)([^0-9.]+)`)

// FuzzExactDuration checks exactDuration against a naive reference: each
// number of the duration, read as an exact rational, times its unit, is a
// whole number of nanoseconds, and the duration is their sum.
func FuzzExactDuration(f *testing.F) {
	for _, s := range []string{"1.5ns", "1.5ms", "0.1m", "1h0.5m3.000s", "0.0000000000025h",
		"0.00000000000025h", "-2.5µs", ".5s", "5.s", "0",
		"2562047h47m16.854775807s", "-9223372036854775808ns", ".00000022000000h"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if len(s) > 64 {
			return
		}
		d, err := time.ParseDuration(s)
		if err != nil {
			return
		}
		whole, sum := true, new(big.Rat)
		for _, m := range durationPartRE.FindAllStringSubmatch(s, -1) {
			num := m[1]
			if num == "" || num == "." {
				num = "0"
			}
			x, ok := new(big.Rat).SetString(num)
			if !ok {
				t.Fatalf("%q: number %q", s, m[1])
			}
			x.Mul(x, new(big.Rat).SetUint64(unitNanos[m[2]]))
			whole = whole && x.IsInt()
			sum.Add(sum, x)
		}
		if s[0] == '-' {
			sum.Neg(sum)
		}
		got, why := exactDuration(s)
		if !whole || !sum.IsInt() || !sum.Num().IsInt64() {
			if why == "" {
				t.Fatalf("exactDuration(%q) = %v, want a refusal", s, got)
			}
			return
		}
		if why != "" || big.NewRat(int64(got.Duration()), 1).Cmp(sum) != 0 {
			t.Fatalf("exactDuration(%q) = %v, %q; want %v (ParseDuration %d)", s, got, why, sum, int64(d))
		}
	})
}
