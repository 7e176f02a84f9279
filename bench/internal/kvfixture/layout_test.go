package kvfixture

import (
	"context"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/require"
)

// TestMemkvLayoutIsNotTheKeysOrder: memkv allocates a key's node and value
// when the key is first written, so a store loaded in the order of the
// caller's slice lays its keys out in memory in that order, and a benchmark
// reading the keys in (or near) that order (bench/memkv's Scan100 over
// ascending keys, bench/txn's consecutive reads) walks adjacent memory.
// badger's WriteBatch applies a transaction's writes in map order, so its
// memtable holds them scattered: loading memkv in the slice's order gave it
// a locality its peer never had. Neighbours in the slice must not be
// neighbours in memkv's memory.
func TestMemkvLayoutIsNotTheKeysOrder(t *testing.T) {
	keys := Keys(4096, 1)
	s := Memkv(t, keys)
	addr := func(k []byte) uintptr {
		v, ok, err := s.Get(context.Background(), s.ReadVersion(), k)
		require.NoError(t, err)
		require.True(t, ok)
		return uintptr(unsafe.Pointer(unsafe.SliceData(v)))
	}
	near := 0
	prev := addr(keys[0])
	for _, k := range keys[1:] {
		a := addr(k)
		if d := int64(a) - int64(prev); d > -256 && d < 256 {
			near++
		}
		prev = a
	}
	require.Less(t, near, len(keys)/20,
		"%d of %d keys' values lie within 256 bytes of the previous key's: memkv was loaded in the slice's order", near, len(keys)-1)
}
