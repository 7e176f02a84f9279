package main

import (
	"testing"
	"time"
)

// FuzzParseBurst: -burst takes whatever the operator types. A spec parseBurst
// accepts is within the documented bounds, is a burst (never the "no burst"
// zero value) unless the input was empty, and prints (as the run's report
// does) to a string that parses back to the same spec; a refused one is the
// zero value.
func FuzzParseBurst(f *testing.F) {
	for _, s := range []string{"", "10s:300ms:1", "0s:1s:2", "1h:1m:64", "10s:300ms", "-1s:1s:1",
		"10s:0s:1", "1.5s:1µs:3", "+2s:+1s:+1", "10s:300ms:65", "::", "9223372036s:1s:1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		b, err := parseBurst(s)
		if err != nil {
			if b != (burstSpec{}) {
				t.Fatalf("parseBurst(%q) refused with %v but returned %+v", s, err, b)
			}
			return
		}
		if s == "" {
			if b != (burstSpec{}) {
				t.Fatalf(`parseBurst("") = %+v, want no burst`, b)
			}
			return
		}
		if b.At < 0 || b.For <= 0 || b.For > time.Minute || b.Procs < 1 || b.Procs > 64 {
			t.Fatalf("parseBurst(%q) = %+v: outside at >= 0, 0 < for <= 1m, 1 <= procs <= 64", s, b)
		}
		again, err := parseBurst(b.String())
		if err != nil || again != b {
			t.Fatalf("parseBurst(%q) = %+v printed as %q, which parses to %+v, %v", s, b, b.String(), again, err)
		}
	})
}
