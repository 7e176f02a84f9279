package cache_test

import (
	"context"
	"math/rand/v2"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/cache"
)

// TestStressQuiescentAgreement races every writer of the index and the
// policy (Get, GetValid rejecting values, GetMany, LookupMany + FillMany,
// Set, Delete, refills, invalidations, capacity changes under load) and,
// once all are done, checks that the index and the policy agree: Len is the
// number of keys Contains finds, and within the capacity; Stats.Len is Len;
// every read counts once, as a hit, a miss or not owned (ownership of some
// keys flips meanwhile, a ring swap and back); and no read returned a version older than one whose
// invalidation was applied before it started.
func TestStressQuiescentAgreement(t *testing.T) {
	t.Run("word", func(t *testing.T) {
		stressQuiescent(t, func(v uint64) uint64 { return v }, func(v uint64) uint64 { return v })
	})
	t.Run("boxed", func(t *testing.T) {
		stressQuiescent(t, func(v uint64) string { return strconv.FormatUint(v, 10) }, func(s string) uint64 {
			v, _ := strconv.ParseUint(s, 10, 64)
			return v
		})
	})
}

func stressQuiescent[V any](t *testing.T, enc func(uint64) V, dec func(V) uint64) {
	const (
		keys    = 96
		workers = 4
		ops     = 3000
	)
	capFor := func(r *rand.Rand) int { return 8 + r.IntN(keys) }
	var ringSwap atomic.Bool // while set, keys 0-15 are another host's
	owns := func(k int) bool { return k >= 16 || !ringSwap.Load() }
	c := newCache[int, V](t, cache.Config[int]{Capacity: 48, Owns: owns})
	var version, applied [keys]atomic.Uint64
	var locks [keys]sync.Mutex // one writer of a key's version at a time
	var reads atomic.Uint64    // each a hit, a miss or not owned
	loadOne := func(k int) func(context.Context) (V, error) {
		return func(context.Context) (V, error) { return enc(version[k].Load()), nil }
	}
	loadMany := func(_ context.Context, ks []int) ([]V, error) {
		out := make([]V, len(ks))
		for i, k := range ks {
			out[i] = enc(version[k].Load())
		}
		return out, nil
	}
	check := func(k int, v V, floor uint64) bool {
		if got := dec(v); got < floor {
			t.Errorf("key %d: read version %d after version %d was applied", k, got, floor)
			return false
		}
		return true
	}
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			r := rand.New(rand.NewPCG(uint64(w), 77))
			ctx := context.Background()
			for range ops {
				k := r.IntN(keys)
				floor := applied[k].Load()
				switch op := r.IntN(12); op {
				case 0, 1: // a write: Set, or an event (refill or invalidation)
					locks[k].Lock()
					v := version[k].Add(1)
					switch r.IntN(3) {
					case 0:
						c.Set(k, enc(v))
					case 1:
						c.Apply(cache.Event[int, V]{Kind: cache.Write, Key: k, Version: v, Value: enc(v), Refill: true})
					default:
						c.Apply(cache.Event[int, V]{Kind: cache.Write, Key: k, Version: v})
					}
					applied[k].Store(v)
					locks[k].Unlock()
				case 2:
					c.Delete(k)
				case 3:
					if w == 0 {
						require.NoError(t, c.SetConfig(cache.Config[int]{Capacity: capFor(r), Owns: owns}))
					} else if w == 1 {
						ringSwap.Store(!ringSwap.Load())
					}
				case 4: // a validity check that rejects odd versions
					reads.Add(1)
					v, err := c.GetValid(ctx, k, func(v V) bool { return dec(v)%2 == 0 }, loadOne(k))
					if err != nil || !check(k, v, floor) {
						t.Errorf("GetValid: %v", err)
						return
					}
				case 5, 6: // LookupMany then FillMany
					ks := []int{k, r.IntN(keys), r.IntN(keys), k}
					floors := []uint64{floor, applied[ks[1]].Load(), applied[ks[2]].Load(), floor}
					out := make([]V, len(ks))
					reads.Add(uint64(len(ks)))
					missed := c.LookupMany(ks, out, nil)
					mk := make([]int, len(missed))
					for j, i := range missed {
						mk[j] = ks[i]
					}
					vs, err := c.FillMany(ctx, mk, loadMany)
					require.NoError(t, err)
					for j, i := range missed {
						out[i] = vs[j]
					}
					for i := range ks {
						if !check(ks[i], out[i], floors[i]) {
							return
						}
					}
				case 7:
					ks := []int{k, r.IntN(keys)}
					floors := []uint64{floor, applied[ks[1]].Load()}
					reads.Add(2)
					vs, err := c.GetMany(ctx, ks, loadMany)
					require.NoError(t, err)
					for i := range ks {
						if !check(ks[i], vs[i], floors[i]) {
							return
						}
					}
				default:
					reads.Add(1)
					v, err := c.Get(ctx, k, loadOne(k))
					require.NoError(t, err)
					if !check(k, v, floor) {
						return
					}
				}
			}
		})
	}
	wg.Wait()
	ringSwap.Store(false)
	n := c.Len()
	held := 0
	for k := range keys {
		if c.Contains(k) {
			held++
		}
	}
	s := c.Stats()
	assert.Equal(t, held, n, "Len against the keys the index holds")
	assert.LessOrEqual(t, n, s.Capacity)
	assert.Equal(t, n, s.Len)
	assert.Equal(t, reads.Load(), s.Hits+s.Misses+s.NotOwned, "every read is a hit, a miss or not owned")
	assert.Positive(t, s.NotOwned)
	assert.Positive(t, s.Evictions)
	assert.Positive(t, s.Invalidations)
	assert.Positive(t, s.Refills)
}
