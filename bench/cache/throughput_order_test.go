package cache_test

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestRotatedImplsHoldEachOnce: every rotation of the throughput benchmarks'
// implementations runs each of them exactly once, rotation 0 keeps the
// listed order, and a rotation by n starts at the n-th (modulo the count, so
// a round number larger than the list, or negative, still works).
func TestRotatedImplsHoldEachOnce(t *testing.T) {
	names := func(l []impl) []string {
		s := make([]string, len(l))
		for i, im := range l {
			s[i] = im.name
		}
		return s
	}
	want := names(throughputImpls)
	require.Equal(t, []string{"tierkit", "otter", "otter-sync", "theine", "ristretto", "golang-lru"}, want)
	for n := -2 * len(want); n <= 2*len(want); n++ {
		got := names(rotated(throughputImpls, n))
		require.ElementsMatch(t, want, got, "rotation %d", n)
		require.Len(t, got, len(want), "rotation %d", n)
		first := ((n % len(want)) + len(want)) % len(want)
		require.Equal(t, want[first], got[0], "rotation %d", n)
		for i := range got {
			require.Equal(t, want[(first+i)%len(want)], got[i], "rotation %d keeps the cyclic order", n)
		}
	}
	require.Equal(t, want, names(rotated(throughputImpls, 0)))
	require.Equal(t, want, names(throughputImpls), "rotating leaves the list as it was")
	require.Empty(t, rotated([]impl(nil), 3))

	bytesNames := func(l []bytesImpl) []string {
		s := make([]string, len(l))
		for i, m := range l {
			s[i] = m.name
		}
		return s
	}
	wantBytes := bytesNames(throughputBytesImpls)
	require.Equal(t, []string{"tierkit", "otter", "golang-lru"}, wantBytes)
	for n := range 2 * len(wantBytes) {
		got := bytesNames(rotated(throughputBytesImpls, n))
		require.ElementsMatch(t, wantBytes, got, "rotation %d", n)
		require.Equal(t, wantBytes[n%len(wantBytes)], got[0], "rotation %d", n)
	}
}
