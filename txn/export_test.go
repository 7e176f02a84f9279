package txn

import "testing"

// SetWriteLimits lowers the write buffer's limits until t ends: the longest
// key and value, the number of written keys and of arena chunks. A zero
// argument keeps that limit. Tests that call it must not run in parallel.
func SetWriteLimits(t testing.TB, key, value, writes, chunks int) {
	old := limits
	t.Cleanup(func() { limits = old })
	for _, l := range []struct {
		p *int
		v int
	}{
		{&limits.key, key}, {&limits.value, value}, {&limits.writes, writes}, {&limits.chunks, chunks},
	} {
		if l.v != 0 {
			*l.p = l.v
		}
	}
}
