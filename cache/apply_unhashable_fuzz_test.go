package cache_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/cache"
)

// FuzzApplyUnhashable compares one Apply of a batch of events with the same
// events applied one call each, up to the first whose key cannot be hashed
// (a slice in an interface key: both panic there). Invariant: the two
// caches hold the same entries and count the same invalidations, whatever
// runs of invalidations the batch holds before the bad key.
//
// Each op byte: the low 2 bits the kind (Delete, Write, Write with Refill,
// Checkpoint), the next 2 the key (of four), bit 4 a version step, and bit 7
// makes the key unhashable.
func FuzzApplyUnhashable(f *testing.F) {
	f.Add([]byte{0x00, 0x05, 0x80})
	f.Add([]byte{0x02, 0x06, 0x0a, 0x00, 0x04, 0x08, 0x0c, 0x00, 0x04, 0x08, 0x0c, 0x00, 0x04, 0x08, 0x0c, 0x00, 0x04, 0x08, 0x84})
	f.Add([]byte{0x00, 0x03, 0x04, 0x82, 0x08})
	f.Fuzz(func(t *testing.T, ops []byte) {
		if len(ops) > 64 {
			ops = ops[:64]
		}
		keys := []string{"a", "b", "c", "d"}
		kinds := []cache.EventKind{cache.Delete, cache.Write, cache.Write, cache.Checkpoint}
		var events []cache.Event[any, int]
		version := uint64(10)
		for i, op := range ops {
			if op&0x10 != 0 {
				version++
			}
			e := cache.Event[any, int]{Kind: kinds[op&3], Key: keys[op>>2&3], Version: version, Value: i, Refill: op&3 == 2}
			if op&0x80 != 0 {
				e.Key = []byte(keys[op>>2&3])
			}
			events = append(events, e)
		}
		batch, single := newFilled(t, keys), newFilled(t, keys)
		batchPanicked := panics(func() { batch.Apply(events...) })
		singlePanicked := false
		for _, e := range events {
			if singlePanicked = panics(func() { single.Apply(e) }); singlePanicked {
				break
			}
		}
		require.Equal(t, singlePanicked, batchPanicked, "ops %x", ops)
		for _, k := range keys {
			v1, ok1 := batch.TryGet(k)
			v2, ok2 := single.TryGet(k)
			require.Equal(t, ok2, ok1, "key %s cached: ops %x", k, ops)
			require.Equal(t, v2, v1, "key %s: ops %x", k, ops)
		}
		require.Equal(t, single.Stats().Invalidations, batch.Stats().Invalidations, "ops %x", ops)
	})
}

func newFilled(t *testing.T, keys []string) *cache.Cache[any, int] {
	c, err := cache.New[any, int](cache.Config[any]{Capacity: 16})
	require.NoError(t, err)
	for i, k := range keys {
		c.Set(k, -1-i)
	}
	return c
}

func panics(f func()) (p bool) {
	defer func() {
		if recover() != nil {
			p = true
		}
	}()
	f()
	return false
}
