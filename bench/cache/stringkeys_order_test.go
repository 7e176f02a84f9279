package cache_test

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestStringKeysOrderRotates: BenchmarkStringKeys runs its caches in the
// order stringKeysOrder gives for -rotate, which moves each cache through
// every position over the rounds. It ran them in one fixed order, tierkit
// first, so a drift of the machine within a round fell on the same cache in
// every round. Each order's caches also answer what they were given.
func TestStringKeysOrderRotates(t *testing.T) {
	names := func(l []stringKeysImpl) []string {
		s := make([]string, len(l))
		for i, m := range l {
			s[i] = m.name
		}
		return s
	}
	want := []string{"tierkit", "otter", "otter-sync", "golang-lru"}
	require.Equal(t, want, names(stringKeysOrder(8, 0)))
	for n := -len(want); n <= 2*len(want); n++ {
		got := names(stringKeysOrder(8, n))
		first := ((n % len(want)) + len(want)) % len(want)
		for i := range got {
			require.Equal(t, want[(first+i)%len(want)], got[i], "rotation %d", n)
		}
	}
	for _, m := range stringKeysOrder(8, 1) {
		get, set := m.make()
		set("k", stringKeysValue(7))
		v, ok := get("k")
		require.True(t, ok, m.name)
		require.Equal(t, stringKeysValue(7), v, m.name)
	}
}
