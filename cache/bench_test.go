package cache_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"

	"github.com/tierkit/tierkit/cache"
)

// mutexMap is the naive baseline: a map under one mutex, no eviction.
type mutexMap struct {
	mu sync.Mutex
	m  map[uint64]uint64
}

func (m *mutexMap) get(k uint64) (uint64, bool) {
	m.mu.Lock()
	v, ok := m.m[k]
	m.mu.Unlock()
	return v, ok
}

func benchKeys() []uint64 {
	r := rand.New(rand.NewPCG(1, 2))
	z := rand.NewZipf(r, 1.01, 1, 1<<14-1)
	keys := make([]uint64, 1<<16)
	for i := range keys {
		keys[i] = z.Uint64()
	}
	return keys
}

// BenchmarkHit: parallel lookups of Zipf keys that are all cached.
func BenchmarkHit(b *testing.B) {
	keys := benchKeys()
	b.Run("impl=cache", func(b *testing.B) {
		c, _ := cache.New[uint64, uint64](cache.Config[uint64]{Capacity: 1 << 14})
		for k := range uint64(1 << 14) {
			c.Set(k, k)
		}
		b.ReportAllocs()
		b.ResetTimer()
		b.RunParallel(func(pb *testing.PB) {
			i := rand.IntN(len(keys))
			for pb.Next() {
				c.TryGet(keys[i&(len(keys)-1)])
				i++
			}
		})
		b.ReportMetric(100*c.Stats().HitRatio(), "hit%")
	})
	b.Run("impl=mutexmap", func(b *testing.B) {
		m := &mutexMap{m: map[uint64]uint64{}}
		for k := range uint64(1 << 14) {
			m.m[k] = k
		}
		b.ReportAllocs()
		b.ResetTimer()
		b.RunParallel(func(pb *testing.PB) {
			i := rand.IntN(len(keys))
			for pb.Next() {
				m.get(keys[i&(len(keys)-1)])
				i++
			}
		})
	})
}

// BenchmarkGetLoad: read-through with a quarter-size cache, so misses load,
// insert and evict.
func BenchmarkGetLoad(b *testing.B) {
	keys := benchKeys()
	c, _ := cache.New[uint64, uint64](cache.Config[uint64]{Capacity: 1 << 12})
	ctx := context.Background()
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		k := keys[i&(len(keys)-1)]
		i++
		_, _ = c.Get(ctx, k, func(context.Context) (uint64, error) { return k, nil })
	}
	s := c.Stats()
	b.ReportMetric(100*s.HitRatio(), "hit%")
}

// BenchmarkGetMany: reads of 10 keys with a quarter-size cache, as one
// GetMany (impl=getmany: one load for the misses) or as 10 Gets (impl=gets: a
// load per miss). One op is one 10-key read; loads/op is backend calls.
func BenchmarkGetMany(b *testing.B) {
	for _, impl := range []string{"getmany", "gets"} {
		b.Run("impl="+impl, func(b *testing.B) {
			keys := benchKeys()
			c, _ := cache.New[uint64, uint64](cache.Config[uint64]{Capacity: 1 << 12})
			ctx := context.Background()
			echo := func(_ context.Context, ks []uint64) ([]uint64, error) { return ks, nil }
			batch := make([]uint64, 10)
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				for j := range batch {
					batch[j] = keys[(i+j*7919)&(len(keys)-1)]
				}
				i++
				if impl == "getmany" {
					if _, err := c.GetMany(ctx, batch, echo); err != nil {
						b.Fatal(err)
					}
					continue
				}
				for _, k := range batch {
					if _, err := c.Get(ctx, k, func(context.Context) (uint64, error) { return k, nil }); err != nil {
						b.Fatal(err)
					}
				}
			}
			s := c.Stats()
			b.ReportMetric(float64(s.Loads)/float64(b.N), "loads/op")
			b.ReportMetric(100*s.HitRatio(), "hit%")
		})
	}
}

// BenchmarkLookupManyStrings: 16-key reads (LookupMany) of string keys in a
// cache of 2^20 entries, far larger than the CPU's caches, all hits: what a
// pipelined run of GETs costs the gateway's caching tier per shard. One op is
// one 16-key read.
func BenchmarkLookupManyStrings(b *testing.B) {
	const n = 1 << 20
	keys := make([]string, n)
	c, _ := cache.New[string, uint64](cache.Config[string]{Capacity: n})
	for i := range keys {
		keys[i] = fmt.Sprintf("key:%012d", i)
		c.Set(keys[i], uint64(i))
	}
	batch := make([]string, 16)
	out := make([]uint64, len(batch))
	var missed []int
	b.ReportAllocs()
	i := uint64(0)
	for b.Loop() {
		for j := range batch {
			i = i*6364136223846793005 + 1442695040888963407
			batch[j] = keys[(i>>33)&(n-1)]
		}
		missed = c.LookupMany(batch, out, missed[:0])
	}
	s := c.Stats()
	b.ReportMetric(100*s.HitRatio(), "hit%")
}

// BenchmarkApply: invalidation events on cached keys.
func BenchmarkApply(b *testing.B) {
	c, _ := cache.New[uint64, uint64](cache.Config[uint64]{Capacity: 1 << 12})
	b.ReportAllocs()
	var k uint64
	for b.Loop() {
		k++
		c.Set(k&4095, k)
		c.Apply(cache.Event[uint64, uint64]{Kind: cache.Write, Key: k & 4095, Version: k})
	}
}

// BenchmarkInvalidateAbsent: invalidation events from parallel goroutines for
// keys the cache does not hold (a cache tier's usual case: most writes are to
// keys nobody read lately), half of the keys of a cache that holds others.
func BenchmarkInvalidateAbsent(b *testing.B) {
	c, _ := cache.New[uint64, uint64](cache.Config[uint64]{Capacity: 1 << 12})
	for k := range uint64(1 << 12) {
		c.Set(2*k, k) // even keys cached, odd keys invalidated
	}
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		k := rand.Uint64()
		for pb.Next() {
			k++
			c.Apply(cache.Event[uint64, uint64]{Kind: cache.Write, Key: (2*k + 1) & (1<<13 - 1), Version: k})
		}
	})
}

// BenchmarkApplyRun: 16 invalidations of random string keys among 2^20 in a
// cache of 2^19, as a stream reader sees them, applied one event per Apply
// call (each) or all 16 in one call (run), which looks their keys up ahead.
// About half the keys are cached (those the cache holds are invalidated and
// put back, so the share stays); the others take the absent-key fast path.
// One op is 16 events.
func BenchmarkApplyRun(b *testing.B) {
	const n = 1 << 20
	keys := make([]string, n)
	for i := range keys {
		keys[i] = fmt.Sprintf("key:%012d", i)
	}
	for _, mode := range []string{"each", "run"} {
		b.Run("apply="+mode, func(b *testing.B) {
			c, _ := cache.New[string, uint64](cache.Config[string]{Capacity: n / 2})
			for i := 0; i < n; i += 2 {
				c.Set(keys[i], uint64(i))
			}
			evs := make([]cache.Event[string, uint64], 16)
			b.ReportAllocs()
			x := uint64(1)
			for b.Loop() {
				for j := range evs {
					x = x*6364136223846793005 + 1442695040888963407
					evs[j] = cache.Event[string, uint64]{Kind: cache.Write, Key: keys[(x>>33)&(n-1)]}
				}
				if mode == "run" {
					c.Apply(evs...)
				} else {
					for j := range evs {
						c.Apply(evs[j])
					}
				}
				for j := range evs {
					if k := evs[j].Key; k[len(k)-1]%2 == 0 { // an even key: put it back
						c.Set(k, 0)
					}
				}
			}
		})
	}
}

// BenchmarkMissAfterBurst: one read-through miss of a new key, after a
// FillMany of the given number of keys had all their fill records in flight
// at once, and after enough misses since that sweeps dropped the burst's
// records. The fill records of a shard are swept every few dozen misses; a
// sweep should not cost in proportion to the burst long gone.
func BenchmarkMissAfterBurst(b *testing.B) {
	ctx := context.Background()
	for _, burst := range []int{1 << 10, 1 << 16, 1 << 20} {
		b.Run(fmt.Sprintf("burst=%d", burst), func(b *testing.B) {
			c, _ := cache.New[uint64, uint64](cache.Config[uint64]{Capacity: 1 << 10})
			keys := make([]uint64, burst)
			for i := range keys {
				keys[i] = uint64(i)
			}
			_, err := c.FillMany(ctx, keys, func(_ context.Context, ks []uint64) ([]uint64, error) {
				return ks, nil
			})
			if err != nil {
				b.Fatal(err)
			}
			load := func(context.Context) (uint64, error) { return 1, nil }
			k := uint64(burst)
			for range 2*burst + 1<<14 { // past the sweep that drops the burst's records
				_, _ = c.Get(ctx, k, load)
				k++
			}
			b.ReportAllocs()
			for b.Loop() {
				_, _ = c.Get(ctx, k, load)
				k++
			}
		})
	}
}
