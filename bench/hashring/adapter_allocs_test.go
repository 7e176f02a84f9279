package hashringbench

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestBuraksezerLookupAddsNoAllocation: buraksezer's LocateKey takes the key as
// []byte and allocates nothing itself; the adapter, given the harness's string
// key, must not add an allocation of its own (a []byte(key) copy escaping into
// the hasher), which BenchmarkLookup would charge to buraksezer and no other
// implementation pays.
func TestBuraksezerLookupAddsNoAllocation(t *testing.T) {
	r := buildBuraksezer(equalFleet(10)).(buraksezerRouter)
	k := benchKeys[42]
	kb := []byte(k)
	var id string
	lib := testing.AllocsPerRun(100, func() { id = r.c.LocateKey(kb).String() })
	adapter := testing.AllocsPerRun(100, func() { id = r.lookup(k) })
	require.Equal(t, lib, adapter, "allocations per lookup: the library's own, and the adapter's")
	require.Equal(t, r.c.LocateKey(kb).String(), r.lookup(k))
	_ = id
}
