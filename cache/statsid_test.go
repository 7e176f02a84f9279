package cache_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/cache"
)

// statsHarness drives a cache and counts the reads it makes, by kind, so
// that the Stats identities can be checked against them.
type statsHarness struct {
	t     *testing.T
	c     *cache.Cache[string, int]
	clock *fakeClock

	mu         sync.Mutex
	gets       uint64 // Get and GetValid calls
	lookups    uint64 // keys read by TryGet, LookupMany and LookupManyValid
	lookupHits uint64 // of those, served from memory
	bulkLoads  uint64 // FillMany calls (GetMany's included)
}

var errLoad = errors.New("test: load failed")

func (h *statsHarness) add(gets, lookups, lookupHits, bulkLoads uint64) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.gets += gets
	h.lookups += lookups
	h.lookupHits += lookupHits
	h.bulkLoads += bulkLoads
}

func (h *statsHarness) get(key string, load func(context.Context) (int, error)) {
	h.add(1, 0, 0, 0)
	_, _ = h.c.Get(context.Background(), key, load)
}

func (h *statsHarness) getValid(key string, valid func(int) bool) {
	h.add(1, 0, 0, 0)
	_, _ = h.c.GetValid(context.Background(), key, valid, loadOne)
}

func (h *statsHarness) tryGet(key string) {
	_, ok := h.c.TryGet(key)
	h.add(0, 1, map[bool]uint64{true: 1}[ok], 0)
}

func (h *statsHarness) lookupMany(keys []string, valid func(int) bool) []string {
	out := make([]int, len(keys))
	missed := h.c.LookupManyValid(keys, out, nil, valid)
	h.add(0, uint64(len(keys)), uint64(len(keys)-len(missed)), 0)
	mk := make([]string, len(missed))
	for j, i := range missed {
		mk[j] = keys[i]
	}
	return mk
}

func (h *statsHarness) fillMany(keys []string) {
	h.add(0, 0, 0, 1)
	_, err := h.c.FillMany(context.Background(), keys, func(_ context.Context, ks []string) ([]int, error) {
		return make([]int, len(ks)), nil
	})
	require.NoError(h.t, err)
}

func loadOne(context.Context) (int, error) { return 1, nil }

// checkCacheIdentities asserts what holds after any sequence of reads in
// which no caller left early: every read is a hit, a miss or a read not
// owned, and every Get not served from memory either loaded or shared
// another Get's load (Coalesced), once.
func checkCacheIdentities(t *testing.T, h *statsHarness) {
	t.Helper()
	s := h.c.Stats()
	assert.Equal(t, h.gets+h.lookups, s.Hits+s.Misses+s.NotOwned, "reads = Hits + Misses + NotOwned (%+v)", s)
	assert.Equal(t, h.gets, (s.Hits-h.lookupHits)+(s.Loads-h.bulkLoads)+s.Coalesced,
		"each Get is a hit, a load or coalesced (%+v)", s)
	assert.LessOrEqual(t, s.LoadErrors, s.Loads)
}

// TestStatsIdentities checks each Stats counter against what cache/doc.go
// and Stats say it counts, on every read path (Get, GetValid, TryGet,
// LookupMany(Valid), FillMany, GetMany), with Apply events, SetConfig, the
// staleness bound (as a TTL, and a shared load slower than it) and keys not
// owned.
func TestStatsIdentities(t *testing.T) {
	type want struct {
		Hits, Misses, NotOwned, Loads, LoadErrors, Coalesced         uint64
		Invalidations, Refills, DroppedFills, StaleBypass, Evictions uint64
		Checkpoints                                                  uint64
		Len                                                          int
	}
	never := func(int) bool { return false }
	odd := func(v int) bool { return v%2 == 1 }
	tests := []struct {
		name  string
		cfg   cache.Config[string]
		drive func(h *statsHarness)
		want  want
	}{
		{
			name:  "Get miss then hit",
			drive: func(h *statsHarness) { h.get("k", loadOne); h.get("k", loadOne) },
			want:  want{Hits: 1, Misses: 1, Loads: 1, Len: 1},
		},
		{
			name: "Get load error",
			drive: func(h *statsHarness) {
				h.get("k", func(context.Context) (int, error) { return 0, errLoad })
			},
			want: want{Misses: 1, Loads: 1, LoadErrors: 1},
		},
		{
			name: "herd of Gets",
			drive: func(h *statsHarness) {
				release := make(chan struct{})
				var wg sync.WaitGroup
				for range 5 {
					wg.Go(func() {
						h.get("k", func(context.Context) (int, error) { <-release; return 1, nil })
					})
					synctest.Wait()
				}
				close(release)
				wg.Wait()
			},
			want: want{Misses: 5, Loads: 1, Coalesced: 4, Len: 1},
		},
		{
			name: "GetValid rejects",
			drive: func(h *statsHarness) {
				h.c.Set("k", 2)
				h.getValid("k", never) // deleted, a miss, loaded again
				h.getValid("k", odd)   // the loaded 1
			},
			want: want{Hits: 1, Misses: 1, Loads: 1, Invalidations: 1, Len: 1},
		},
		{
			name: "TryGet",
			drive: func(h *statsHarness) {
				h.c.Set("k", 1)
				h.tryGet("k")
				h.tryGet("absent")
			},
			want: want{Hits: 1, Misses: 1, Len: 1},
		},
		{
			name: "LookupMany and FillMany",
			drive: func(h *statsHarness) {
				h.c.Set("a", 1)
				h.fillMany(h.lookupMany([]string{"a", "b", "c"}, nil))
				h.lookupMany([]string{"a", "b", "c"}, nil)
			},
			want: want{Hits: 4, Misses: 2, Loads: 1, Len: 3},
		},
		{
			name: "LookupManyValid rejects",
			drive: func(h *statsHarness) {
				h.c.Set("a", 1)
				h.c.Set("b", 2)
				h.lookupMany([]string{"a", "b"}, odd)
			},
			want: want{Hits: 1, Misses: 1, Invalidations: 1, Len: 1},
		},
		{
			name: "GetMany",
			drive: func(h *statsHarness) {
				h.c.Set("a", 1)
				keys := []string{"a", "b"}
				h.add(0, 2, 1, 1) // a hit, b missed and bulk-loaded
				_, err := h.c.GetMany(context.Background(), keys, func(_ context.Context, ks []string) ([]int, error) {
					return make([]int, len(ks)), nil
				})
				require.NoError(h.t, err)
			},
			want: want{Hits: 1, Misses: 1, Loads: 1, Len: 2},
		},
		{
			name: "Apply events",
			drive: func(h *statsHarness) {
				h.c.Set("a", 1)
				h.c.Set("b", 1)
				h.c.Apply(
					cache.Event[string, int]{Kind: cache.Write, Key: "a", Version: 1},
					cache.Event[string, int]{Kind: cache.Write, Key: "b", Version: 1, Value: 3, Refill: true},
					cache.Event[string, int]{Kind: cache.Delete, Key: "absent", Version: 1},
					cache.Event[string, int]{Kind: cache.Checkpoint, Version: 1},
				)
				h.tryGet("a")
				h.tryGet("b")
			},
			want: want{Hits: 1, Misses: 1, Invalidations: 1, Refills: 1, Checkpoints: 1, Len: 1},
		},
		{
			name: "fill dropped by a Delete during its load",
			drive: func(h *statsHarness) {
				h.get("k", func(context.Context) (int, error) { h.c.Delete("k"); return 1, nil })
			},
			want: want{Misses: 1, Loads: 1, DroppedFills: 1},
		},
		{
			name: "SetConfig lowers Capacity",
			cfg:  cache.Config[string]{Capacity: 4},
			drive: func(h *statsHarness) {
				for _, k := range []string{"a", "b", "c", "d"} {
					h.c.Set(k, 1)
				}
				require.NoError(h.t, h.c.SetConfig(cache.Config[string]{Capacity: 2}))
			},
			want: want{Evictions: 2, Len: 2},
		},
		{
			name: "staleness bound as a TTL",
			cfg:  cache.Config[string]{MaxStaleness: time.Second},
			drive: func(h *statsHarness) {
				h.get("k", loadOne)
				h.clock.Advance(2 * time.Second)
				h.get("k", loadOne) // beyond the bound: a miss that loads again
				h.get("k", loadOne)
			},
			want: want{Hits: 1, Misses: 2, Loads: 2, StaleBypass: 1, Len: 1},
		},
		{
			name: "shared load slower than the bound",
			cfg:  cache.Config[string]{MaxStaleness: time.Second},
			drive: func(h *statsHarness) {
				release := make(chan struct{})
				var wg sync.WaitGroup
				wg.Go(func() {
					h.get("k", func(context.Context) (int, error) { <-release; return 1, nil })
				})
				synctest.Wait()
				h.clock.Advance(2 * time.Second)
				wg.Go(func() { h.get("k", loadOne) }) // joins, then loads for itself
				synctest.Wait()
				close(release)
				wg.Wait()
			},
			want: want{Misses: 2, Loads: 2, StaleBypass: 1, Len: 1},
		},
		{
			name: "keys not owned",
			cfg:  cache.Config[string]{Owns: func(k string) bool { return k != "x" }},
			drive: func(h *statsHarness) {
				h.get("x", loadOne) // loads, stores nothing
				h.tryGet("x")
				h.fillMany(h.lookupMany([]string{"x", "k"}, nil))
				h.c.Set("x", 1) // ignored
			},
			want: want{Misses: 1, NotOwned: 3, Loads: 2, Len: 1},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				clock := &fakeClock{}
				cfg := tt.cfg
				cfg.Clock = clock
				h := &statsHarness{t: t, c: newCache[string, int](t, cfg), clock: clock}
				tt.drive(h)
				checkCacheIdentities(t, h)
				s := h.c.Stats()
				assert.Equal(t, tt.want, want{
					Hits: s.Hits, Misses: s.Misses, NotOwned: s.NotOwned, Loads: s.Loads,
					LoadErrors: s.LoadErrors, Coalesced: s.Coalesced, Invalidations: s.Invalidations,
					Refills: s.Refills, DroppedFills: s.DroppedFills, StaleBypass: s.StaleBypass,
					Evictions: s.Evictions, Checkpoints: s.Checkpoints, Len: s.Len,
				})
			})
		})
	}
}
