package mapshrink_test

import (
	"fmt"

	"github.com/tierkit/tierkit/internal/mapshrink"
)

// A map that grew to 1,000 keys keeps the buckets for them after deletes;
// once a quarter of its peak or fewer are left, Rebuild copies what is left
// into a map of its size, and the peak starts again from there.
func ExampleDue() {
	m := make(map[int]string)
	peak := 0
	for i := range 1000 {
		m[i] = "v"
		peak = max(peak, len(m))
	}
	for i := range 1000 {
		delete(m, i)
		if mapshrink.Due(len(m), peak, 64) {
			fmt.Printf("rebuilt at %d keys (peak %d)\n", len(m), peak)
			m, peak = mapshrink.Rebuild(m), len(m)
		}
	}
	fmt.Println(len(m), peak)
	// Output:
	// rebuilt at 250 keys (peak 1000)
	// rebuilt at 62 keys (peak 250)
	// 0 62
}
