package control

import (
	"math/big"
	"regexp"
	"testing"
	"time"
)

// durationPart is one number and unit of a string time.ParseDuration accepts.
var durationPart = regexp.MustCompile(`([0-9]*\.?[0-9]*)([^0-9.]+)`)

// FuzzWholeNanos checks wholeNanos against a naive reference: each number of
// the duration, read as an exact rational, times its unit, is a whole number
// of nanoseconds.
func FuzzWholeNanos(f *testing.F) {
	for _, s := range []string{"1.5ns", "1.5ms", "0.1m", "1h0.5m3.000s", "0.0000000000025h",
		"0.00000000000025h", "-2.5µs", ".5s", "5.s", "0"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if len(s) > 64 {
			return
		}
		if _, err := time.ParseDuration(s); err != nil {
			return
		}
		whole := true
		for _, m := range durationPart.FindAllStringSubmatch(s, -1) {
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
		}
		if got := wholeNanos(s); got != whole {
			t.Fatalf("wholeNanos(%q) = %v, want %v", s, got, whole)
		}
	})
}
