package cache_test

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// recordKV remembers every value Set and answers lookups with liar's value.
type recordKV struct {
	sets map[uint64][]uint64
	liar uint64
}

func (r *recordKV) Get(k uint64) (uint64, bool) { return k ^ r.liar, true }
func (r *recordKV) Set(k, v uint64)             { r.sets[k] = append(r.sets[k], v) }
func (r *recordKV) Len() int                    { return -1 }

func TestThroughputOpWritesNewValuesAndChecksHits(t *testing.T) {
	c := &recordKV{sets: map[uint64][]uint64{}, liar: 1 << 40}
	var cnt throughputCounts
	for n := range 400 {
		throughputOp(c, 7, n, 75, &cnt)
	}
	require.Equal(t, throughputCounts{lookups: 300, hits: 300}, cnt)
	require.Len(t, c.sets[7], 100)
	for i, v := range c.sets[7][1:] {
		require.NotEqual(t, c.sets[7][i], v, "two Sets in a row wrote the same value")
	}
	c.liar, cnt = 1, throughputCounts{}
	for n := range 100 {
		throughputOp(c, 7, n, 75, &cnt)
	}
	require.Equal(t, int64(75), cnt.wrong)
}

// TestThroughputBytesOpChecksHitsAgainstTheirKey: a cache that answers a
// lookup with the value it stored for another key scores wrong hits, as
// BenchmarkThroughput's uint64 check does; one that answers with the key's
// own value scores none.
func TestThroughputBytesOpChecksHitsAgainstTheirKey(t *testing.T) {
	vals := bytesValues()
	stored := map[uint64][]byte{}
	set := func(k uint64, v []byte) { stored[k] = v }
	for _, other := range []uint64{0, 1} { // 0: the key's own value; 1: key^1's
		get := func(k uint64) ([]byte, bool) { v, ok := stored[k^other]; return v, ok }
		var cnt throughputCounts
		for i := range 4000 {
			k := uint64(i % 40)
			throughputBytesOp(get, set, vals, k, i%100, i, &cnt)
		}
		require.Equal(t, int64(3000), cnt.lookups)
		require.Positive(t, cnt.hits)
		if other == 0 {
			require.Zero(t, cnt.wrong, "hits on the key's own value")
		} else {
			require.Equal(t, cnt.hits, cnt.wrong, "every hit returned another key's value")
		}
	}
}

// TestStringKeysLookupChecksTheKeysValue: BenchmarkStringKeys counts a hit
// that returns another key's value as bad, and the key's own value as good.
func TestStringKeysLookupChecksTheKeysValue(t *testing.T) {
	keys := []string{"key:0", "key:1", "key:2", "key:3"}
	stored := map[string][]byte{}
	for i, k := range keys {
		stored[k] = stringKeysValue(i)
	}
	own := func(k string) ([]byte, bool) { v, ok := stored[k]; return v, ok }
	always2 := func(string) ([]byte, bool) { return stored["key:2"], true } // key 2's value for any key
	for i := range keys {
		hit, ok := stringKeysLookup(own, keys, i)
		require.True(t, hit && ok, "key %d's own value", i)
		hit, ok = stringKeysLookup(always2, keys, i)
		require.True(t, hit, "key %d", i)
		require.Equal(t, i == 2, ok, "key %d given key 2's value", i)
	}
	hit, ok := stringKeysLookup(func(string) ([]byte, bool) { return nil, false }, keys, 0)
	require.False(t, hit || ok)
}
