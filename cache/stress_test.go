package cache_test

import (
	"context"
	"math/rand/v2"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/cache"
)

// TestStress races reads (Get, GetMany, TryGet) against a change stream (write, refill,
// delete and checkpoint events), Set, Delete and SetConfig, and checks after
// every read that it never returns a version older than an event already
// applied when the read started (no stale set), and that the size bound holds.
// The larger randomized harness, against peers too, is in bench/cache.
func TestStress(t *testing.T) {
	const (
		keys     = 64
		readers  = 4
		reads    = 20_000
		capacity = 32
	)
	clock := &fakeClock{}
	c := newCache[int, uint64](t, cache.Config[int]{Capacity: capacity, MaxStaleness: time.Millisecond, Clock: clock})
	var version, applied [keys]atomic.Uint64
	var stop atomic.Bool
	var wg sync.WaitGroup
	wg.Go(func() { // the stream
		r := rand.New(rand.NewPCG(1, 2))
		for i := uint64(1); !stop.Load(); i++ {
			clock.Advance(10 * time.Microsecond)
			k := r.IntN(keys)
			v := i // versions and watermarks count in one unit, as a log sequence number does
			version[k].Store(v)
			switch r.IntN(8) {
			case 0:
				c.Apply(cache.Event[int, uint64]{Kind: cache.Delete, Key: k, Version: v})
			case 1, 2:
				c.Apply(cache.Event[int, uint64]{Kind: cache.Write, Key: k, Version: v, Value: v, Refill: true})
			default:
				c.Apply(cache.Event[int, uint64]{Kind: cache.Write, Key: k, Version: v})
			}
			applied[k].Store(v)
			if i%16 == 0 {
				c.Apply(cache.Event[int, uint64]{Kind: cache.Checkpoint, Version: i})
			}
			if i%1000 == 0 {
				require.NoError(t, c.SetConfig(cache.Config[int]{Capacity: capacity/2 + r.IntN(capacity/2+1), MaxStaleness: time.Millisecond}))
			}
		}
	})
	var readersWG sync.WaitGroup
	for id := range readers {
		readersWG.Go(func() {
			r := rand.New(rand.NewPCG(uint64(id), 3))
			for range reads {
				k := r.IntN(keys)
				floor := applied[k].Load()
				var v uint64
				var ok bool
				switch r.IntN(10) {
				case 0:
					v, ok = c.TryGet(k)
				case 1:
					c.Delete(k)
					continue
				case 2: // k and two more keys in one read
					ks := []int{k, r.IntN(keys), r.IntN(keys)}
					floors := []uint64{floor, applied[ks[1]].Load(), applied[ks[2]].Load()}
					vs, err := c.GetMany(context.Background(), ks, func(_ context.Context, miss []int) ([]uint64, error) {
						out := make([]uint64, len(miss))
						for i, m := range miss {
							out[i] = version[m].Load()
						}
						return out, nil
					})
					if err != nil {
						t.Errorf("GetMany: %v", err)
						return
					}
					for i := 1; i < len(ks); i++ {
						if vs[i] < floors[i] {
							t.Errorf("key %d: GetMany read version %d after version %d was applied", ks[i], vs[i], floors[i])
							return
						}
					}
					v, ok = vs[0], true
				default:
					var err error
					v, err = c.Get(context.Background(), k, func(context.Context) (uint64, error) {
						return version[k].Load(), nil
					})
					ok = err == nil
				}
				if ok && v < floor {
					t.Errorf("key %d: read version %d after version %d was applied", k, v, floor)
					return
				}
				if l := c.Len(); l > capacity {
					t.Errorf("Len %d over capacity %d", l, capacity)
					return
				}
			}
		})
	}
	readersWG.Wait()
	stop.Store(true)
	wg.Wait()
	s := c.Stats()
	assert.Positive(t, s.Hits)
	assert.Positive(t, s.Invalidations)
	assert.Positive(t, s.Refills)
	t.Logf("stats: %+v", s)
}

// TestStressResident races lock-free readers against writers that own disjoint
// keys, with string keys (the maphash path) and int keys (the integer path),
// word values (updated in place) and boxed ones (a new entry per update), with
// room for every key and with a quarter of it. Invariants:
//   - a writer reads back what it just stored: the value, or (only when the
//     cache is too small for every key) a miss because it was evicted; never an
//     older value, nor a hit on a key it deleted;
//   - any reader only ever sees a value stored for that key, and for each key
//     a version no older than one it saw before (no value goes back in time);
//   - Len never exceeds the capacity, and with room for every key nothing is
//     evicted.
func TestStressResident(t *testing.T) {
	for _, tt := range []struct {
		name     string
		capacity int
	}{{"room for all", 4 * 256}, {"evicting", 256}} {
		t.Run(tt.name+"/int", func(t *testing.T) {
			stressResident(t, tt.capacity, func(k int) int { return k }, wordValue{})
		})
		t.Run(tt.name+"/string", func(t *testing.T) {
			stressResident(t, tt.capacity, strconv.Itoa, boxedValue{})
		})
	}
}

// A codec turns the stress test's uint64 values into the cache's V and back.
type codec[V any] interface {
	enc(uint64) V
	dec(V) uint64
}

type wordValue struct{}

func (wordValue) enc(v uint64) uint64 { return v }
func (wordValue) dec(v uint64) uint64 { return v }

// boxedValue stores values with a pointer, so the cache boxes them.
type boxedValue struct{}

func (boxedValue) enc(v uint64) *uint64 { return &v }
func (boxedValue) dec(v *uint64) uint64 { return *v }

func stressResident[K comparable, V any](t *testing.T, capacity int, key func(int) K, cd codec[V]) {
	const (
		writers = 4
		perW    = 256  // keys per writer: key w*perW+i
		ops     = 4000 // per writer
	)
	c := newCache[K, V](t, cache.Config[K]{Capacity: capacity})
	all := writers * perW
	// value = version<<32 | key index: a reader can check the key and order.
	var stop atomic.Bool
	var readers sync.WaitGroup
	for id := range 2 {
		readers.Go(func() {
			r := rand.New(rand.NewPCG(uint64(id), 11))
			seen := make([]uint64, all)
			for !stop.Load() {
				i := r.IntN(all)
				x, ok := c.TryGet(key(i))
				if !ok {
					continue
				}
				v := cd.dec(x)
				if int(v&0xffffffff) != i || v>>32 < seen[i] {
					t.Errorf("key %d: read %#x after version %d", i, v, seen[i])
					return
				}
				seen[i] = v >> 32
			}
		})
	}
	var writersWG sync.WaitGroup
	for w := range writers {
		writersWG.Go(func() {
			r := rand.New(rand.NewPCG(uint64(w), 12))
			version := make([]uint64, perW)
			deleted := make([]bool, perW)
			for range ops {
				j := r.IntN(perW)
				i := w*perW + j
				if r.IntN(8) == 0 {
					c.Delete(key(i))
					deleted[j] = true
				} else {
					version[j]++
					c.Set(key(i), cd.enc(version[j]<<32|uint64(i)))
					deleted[j] = false
				}
				x, ok := c.TryGet(key(i))
				var v uint64
				if ok {
					v = cd.dec(x)
				}
				switch {
				case ok && deleted[j]:
					t.Errorf("key %d: hit %#x after Delete", i, v)
					return
				case ok && v != version[j]<<32|uint64(i):
					t.Errorf("key %d: read %#x after storing version %d", i, v, version[j])
					return
				case !ok && !deleted[j] && capacity >= all:
					t.Errorf("key %d: miss right after Set with room for every key", i)
					return
				}
				if l := c.Len(); l > capacity {
					t.Errorf("Len %d over capacity %d", l, capacity)
					return
				}
			}
		})
	}
	writersWG.Wait()
	stop.Store(true)
	readers.Wait()
	s := c.Stats()
	assert.LessOrEqual(t, s.Len, capacity)
	if capacity >= all {
		assert.Zero(t, s.Evictions)
	} else {
		assert.Positive(t, s.Evictions)
	}
}
