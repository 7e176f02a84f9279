package hashringbench

import (
	"runtime"
	"testing"

	"github.com/cespare/xxhash/v2"
	maglev "github.com/dgryski/go-maglev"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestMaglevLeaveIsOneRebuild: BenchmarkLeave times go-maglev's leave as the
// README describes it, one Rebuild of the table with the node dead, not a
// fresh New (which populates the table) followed by a Rebuild (which
// populates it again). A population allocates the M-entry table, so a leave
// allocates about one table, not two. The table is the same, and the router
// it was derived from keeps routing as before.
func TestMaglevLeaveIsOneRebuild(t *testing.T) {
	ms := equalFleet(10)
	r := buildMaglev(ms).(maglevRouter)
	before := make([]string, len(benchKeys))
	for i, k := range benchKeys {
		before[i] = r.lookup(k)
	}
	_ = r.remove(ms[5].id) // warm up anything lazily allocated

	var m0, m1 runtime.MemStats
	runtime.ReadMemStats(&m0)
	left := r.remove(ms[5].id)
	runtime.ReadMemStats(&m1)
	table := float64(maglev.SmallM) * 8 // one []int of M entries
	assert.Less(t, float64(m1.TotalAlloc-m0.TotalAlloc), 1.5*table, "a leave populates the table once")

	ids := make([]string, len(ms))
	for i, m := range ms {
		ids[i] = m.id
	}
	ref := maglev.New(ids, maglev.SmallM)
	ref.Rebuild([]int{5})
	for i, k := range benchKeys {
		require.Equal(t, before[i], r.lookup(k), "the original router is unchanged")
		require.Equal(t, ids[ref.Lookup(xxhash.Sum64String(k))], left.lookup(k), "the table of a rebuild with node 5 dead")
	}
}
