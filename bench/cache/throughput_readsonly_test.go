package cache_test

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// missKV misses every lookup and counts the Sets it is given.
type missKV struct{ sets int }

func (m *missKV) Get(uint64) (uint64, bool) { return 0, false }
func (m *missKV) Set(uint64, uint64)        { m.sets++ }
func (m *missKV) Len() int                  { return -1 }

// TestThroughputReadsOnlyStoresNothing: at reads=100 BenchmarkThroughput's
// operation never stores, not even after a miss, so its evicting case at
// 100% reads inserts and evicts nothing in the timed loop (its doc says so);
// at reads=75 only the one op in four that is a Set stores.
func TestThroughputReadsOnlyStoresNothing(t *testing.T) {
	for _, tt := range []struct{ reads, sets int }{{100, 0}, {75, 100}} {
		c := &missKV{}
		var cnt throughputCounts
		for n := range 400 {
			throughputOp(c, uint64(n), n, tt.reads, &cnt)
		}
		require.Equal(t, tt.sets, c.sets, "reads=%d: Sets after 400 ops that all missed", tt.reads)
		require.Zero(t, cnt.hits)
	}
}
