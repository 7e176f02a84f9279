// Package mapshrink gives back the memory of a Go map that shrank: a map
// keeps the table of the most keys it held, and ranging over it costs in
// proportion to that table, not to what it holds. A caller tracks the peak
// (the most keys since the map was made) and, where it deletes, asks Due;
// Rebuild then copies the keys left into a map of their size.
//
// Rebuilding at a quarter of the peak copies at most a third of the keys
// deleted since the last rebuild, so deleting stays amortized constant time.
// The same rule holds for a slice whose array outgrew what it holds (shed's
// free tickets): Due with the array's capacity as the peak.
package mapshrink

// Due reports whether a map holding n keys, whose peak since it was made is
// peak, should be rebuilt: it held at least min keys, and a quarter of its
// peak or fewer are left.
func Due(n, peak, min int) bool { return peak >= min && n <= peak/4 } // not 4*n: it wraps for huge n

// Rebuild returns a new map holding m's keys and values, sized for them. The
// values are copied as they are: pointers keep pointing at the same things.
func Rebuild[M ~map[K]V, K comparable, V any](m M) M {
	r := make(M, len(m))
	for k, v := range m {
		r[k] = v
	}
	return r
}
