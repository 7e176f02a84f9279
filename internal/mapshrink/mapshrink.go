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
