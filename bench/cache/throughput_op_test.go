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
