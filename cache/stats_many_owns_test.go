package cache_test

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/cache"
)

// manyOwnsStats is the part of Stats that TestStatsManyAndOwnership checks.
type manyOwnsStats struct {
	Hits, Misses, NotOwned, Loads, LoadErrors, Coalesced uint64
	Invalidations, Refills, DroppedFills, StaleBypass    uint64
	Len                                                  int
}

func bulkZeros(_ context.Context, ks []string) ([]int, error) { return make([]int, len(ks)), nil }

// TestStatsManyAndOwnership checks the counters exactly on the multi-key
// paths (GetMany, LookupMany and FillMany) and on the paths of keys not
// owned, including ownership that changes while a load runs.
func TestStatsManyAndOwnership(t *testing.T) {
	tests := []struct {
		name  string
		owns  func(flipped bool, k string) bool // nil: owns every key
		bound time.Duration
		drive func(t *testing.T, c *cache.Cache[string, int], flip func(), clock *fakeClock)
		want  manyOwnsStats
	}{
		{
			name: "GetMany, a key becomes owned during the load",
			owns: func(flipped bool, k string) bool { return k == "a" || flipped },
			drive: func(t *testing.T, c *cache.Cache[string, int], flip func(), _ *fakeClock) {
				_, err := c.GetMany(context.Background(), []string{"a", "b"}, func(ctx context.Context, ks []string) ([]int, error) {
					flip()
					return bulkZeros(ctx, ks)
				})
				require.NoError(t, err)
			},
			want: manyOwnsStats{Misses: 1, NotOwned: 1, Loads: 1, Len: 1},
		},
		{
			name: "GetMany, a duplicate key missed twice",
			drive: func(t *testing.T, c *cache.Cache[string, int], _ func(), _ *fakeClock) {
				_, err := c.GetMany(context.Background(), []string{"a", "a"}, bulkZeros)
				require.NoError(t, err)
				_, err = c.GetMany(context.Background(), []string{"a", "a"}, bulkZeros)
				require.NoError(t, err)
			},
			want: manyOwnsStats{Hits: 2, Misses: 2, Loads: 1, Len: 1},
		},
		{
			name: "GetMany load errors",
			drive: func(t *testing.T, c *cache.Cache[string, int], _ func(), _ *fakeClock) {
				_, err := c.GetMany(context.Background(), []string{"a", "b"}, func(context.Context, []string) ([]int, error) { return nil, errLoad })
				require.ErrorIs(t, err, errLoad)
				_, err = c.GetMany(context.Background(), []string{"a", "b"}, func(context.Context, []string) ([]int, error) { return []int{1}, nil })
				require.Error(t, err)
				require.Panics(t, func() {
					_, _ = c.GetMany(context.Background(), []string{"a"}, func(context.Context, []string) ([]int, error) { panic("load") })
				})
			},
			want: manyOwnsStats{Misses: 5, Loads: 3, LoadErrors: 3},
		},
		{
			name: "FillMany, keys deleted during the load, one twice and one not owned",
			owns: func(_ bool, k string) bool { return k != "x" },
			drive: func(t *testing.T, c *cache.Cache[string, int], _ func(), _ *fakeClock) {
				_, err := c.FillMany(context.Background(), []string{"a", "a", "x", "b"}, func(ctx context.Context, ks []string) ([]int, error) {
					c.Delete("a")
					c.Delete("x")
					return bulkZeros(ctx, ks)
				})
				require.NoError(t, err)
			},
			want: manyOwnsStats{Loads: 1, DroppedFills: 3, Len: 1},
		},
		{
			name:  "LookupMany beyond the bound, then FillMany",
			bound: time.Second,
			drive: func(t *testing.T, c *cache.Cache[string, int], _ func(), clock *fakeClock) {
				c.Set("a", 1)
				clock.Advance(2 * time.Second)
				keys := []string{"a", "b"}
				missed := c.LookupMany(keys, make([]int, 2), nil)
				require.Equal(t, []int{0, 1}, missed)
				_, err := c.FillMany(context.Background(), keys, bulkZeros)
				require.NoError(t, err)
			},
			want: manyOwnsStats{Misses: 2, Loads: 1, StaleBypass: 1, Len: 2},
		},
		{
			name: "a Get not owned leads, an owned Get joins",
			owns: func(flipped bool, _ string) bool { return flipped },
			drive: func(t *testing.T, c *cache.Cache[string, int], flip func(), _ *fakeClock) {
				release := make(chan struct{})
				var wg sync.WaitGroup
				wg.Go(func() {
					_, _ = c.Get(context.Background(), "k", func(context.Context) (int, error) { <-release; return 1, nil })
				})
				synctest.Wait()
				flip()
				wg.Go(func() { _, _ = c.Get(context.Background(), "k", loadOne) })
				synctest.Wait()
				close(release)
				wg.Wait()
			},
			want: manyOwnsStats{Misses: 1, NotOwned: 1, Loads: 1, Coalesced: 1},
		},
		{
			name: "GetMany and Get of one key do not share a load",
			drive: func(t *testing.T, c *cache.Cache[string, int], _ func(), _ *fakeClock) {
				release := make(chan struct{})
				var wg sync.WaitGroup
				wg.Go(func() {
					_, _ = c.Get(context.Background(), "k", func(context.Context) (int, error) { <-release; return 1, nil })
				})
				synctest.Wait()
				_, err := c.GetMany(context.Background(), []string{"k"}, bulkZeros)
				require.NoError(t, err)
				close(release)
				wg.Wait()
			},
			want: manyOwnsStats{Misses: 2, Loads: 2, Len: 1},
		},
		{
			name: "Set and a refill of a key no longer owned",
			owns: func(flipped bool, _ string) bool { return !flipped },
			drive: func(t *testing.T, c *cache.Cache[string, int], flip func(), _ *fakeClock) {
				c.Set("a", 1)
				c.Set("b", 1)
				flip()
				c.Set("a", 2) // invalidates, stores nothing
				c.Apply(cache.Event[string, int]{Kind: cache.Write, Key: "b", Version: 1, Value: 3, Refill: true})
				c.Apply(cache.Event[string, int]{Kind: cache.Write, Key: "c", Version: 1, Value: 3, Refill: true})
			},
			want: manyOwnsStats{Invalidations: 1, Refills: 1, Len: 1},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				clock := &fakeClock{}
				var flipped atomic.Bool
				cfg := cache.Config[string]{Capacity: 10, MaxStaleness: tt.bound, Clock: clock}
				if tt.owns != nil {
					cfg.Owns = func(k string) bool { return tt.owns(flipped.Load(), k) }
				}
				c := newCache[string, int](t, cfg)
				tt.drive(t, c, func() { flipped.Store(true) }, clock)
				s := c.Stats()
				assert.Equal(t, tt.want, manyOwnsStats{
					Hits: s.Hits, Misses: s.Misses, NotOwned: s.NotOwned, Loads: s.Loads,
					LoadErrors: s.LoadErrors, Coalesced: s.Coalesced, Invalidations: s.Invalidations,
					Refills: s.Refills, DroppedFills: s.DroppedFills, StaleBypass: s.StaleBypass, Len: s.Len,
				})
			})
		})
	}
}
