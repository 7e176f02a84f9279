package cache_test

import (
	"context"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/cache"
)

// TestStressRingSwaps is TestStress with what it leaves out: SetConfig
// swaps Owns (a ring change: half the keys leave and come back) and the
// staleness bound (on and off) while loads are in flight and the stream
// applies refills, invalidations and checkpoints, and GetMany and
// LookupMany read duplicate keys. No read returns a version older than one
// applied when it started; once the stream stops and every key is owned
// again, every cached value is the newest (entries kept while not owned
// were retired by the events meanwhile), and Len is within the capacity.
func TestStressRingSwaps(t *testing.T) {
	const keys, readers, reads, capacity = 48, 3, 8000, 24
	clock := &fakeClock{}
	var version, applied [keys]atomic.Uint64
	half := func(k int) bool { return k%2 == 0 }
	cfgs := []cache.Config[int]{
		{Capacity: capacity, MaxStaleness: time.Millisecond},
		{Capacity: capacity / 2, Owns: half},
		{Capacity: capacity, MaxStaleness: time.Hour, Owns: func(k int) bool { return !half(k) }},
		{Capacity: capacity},
	}
	c := newCache[int, uint64](t, cache.Config[int]{Capacity: capacity, Clock: clock})
	load := func(_ context.Context, ks []int) ([]uint64, error) {
		out := make([]uint64, len(ks))
		for i, k := range ks {
			out[i] = version[k].Load()
		}
		return out, nil
	}
	var stop atomic.Bool
	var wg sync.WaitGroup
	wg.Go(func() { // the stream, and the operator
		r := rand.New(rand.NewPCG(5, 6))
		for i := uint64(1); !stop.Load(); i++ {
			clock.Advance(10 * time.Microsecond)
			k := r.IntN(keys)
			v := i // versions and watermarks count in one unit, as a log sequence number does
			version[k].Store(v)
			c.Apply(cache.Event[int, uint64]{Kind: cache.Write, Key: k, Version: v, Value: v, Refill: r.IntN(3) == 0})
			applied[k].Store(v)
			if i%8 == 0 {
				c.Apply(cache.Event[int, uint64]{Kind: cache.Checkpoint, Version: i})
			}
			if i%97 == 0 {
				assert.NoError(t, c.SetConfig(cfgs[r.IntN(len(cfgs))]))
			}
		}
	})
	var rwg sync.WaitGroup
	for id := range readers {
		rwg.Go(func() {
			r := rand.New(rand.NewPCG(uint64(id), 7))
			for range reads {
				k := r.IntN(keys)
				ks := []int{k, r.IntN(keys), k} // a duplicate
				floors := make([]uint64, len(ks))
				for i, x := range ks {
					floors[i] = applied[x].Load()
				}
				var vs []uint64
				var hit []bool
				switch r.IntN(3) {
				case 0:
					var err error
					if vs, err = c.GetMany(context.Background(), ks, load); !assert.NoError(t, err) {
						return
					}
					hit = []bool{true, true, true}
				case 1:
					vs = make([]uint64, len(ks))
					missed := c.LookupMany(ks, vs, nil)
					hit = []bool{true, true, true}
					for _, i := range missed {
						hit[i] = false
					}
				default:
					v, err := c.Get(context.Background(), k, func(ctx context.Context) (uint64, error) {
						vs, err := load(ctx, []int{k})
						return vs[0], err
					})
					if !assert.NoError(t, err) {
						return
					}
					vs, hit = []uint64{v}, []bool{true}
				}
				for i, v := range vs {
					if hit[i] && !assert.GreaterOrEqual(t, v, floors[i], "key %d read after version %d", ks[i], floors[i]) {
						return
					}
				}
			}
		})
	}
	rwg.Wait()
	stop.Store(true)
	wg.Wait()
	assert.NoError(t, c.SetConfig(cache.Config[int]{Capacity: capacity}))
	// The stream invalidates up to its last event, so few entries may be
	// left: read every key through GetMany as well, which serves those that
	// are cached and loads the others; none may be older than the newest.
	kept := 0
	for k := range keys {
		if v, ok := c.TryGet(k); ok {
			kept++
			assert.Equal(t, version[k].Load(), v, "key %d cached stale after the stream", k)
		}
	}
	all := make([]int, keys)
	for k := range all {
		all[k] = k
	}
	vs, err := c.GetMany(context.Background(), all, load)
	require.NoError(t, err)
	for k, v := range vs {
		assert.Equal(t, version[k].Load(), v, "key %d read stale after the stream", k)
	}
	t.Logf("entries kept through the stream: %d", kept)
	s := c.Stats()
	assert.LessOrEqual(t, s.Len, capacity)
	assert.Positive(t, s.Hits)
	assert.Positive(t, s.NotOwned)
	assert.Positive(t, s.Refills)
	t.Logf("stats: %+v", s)
}
