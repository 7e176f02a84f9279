package cache_test

import (
	"context"
	"reflect"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/tierkit/tierkit/cache"
)

// statsDelta returns after - before for every field of Stats (the gauges Len
// and Capacity included), by reflection, so that a field added to Stats is
// checked by every row of TestStatsDeltas without a change to it.
func statsDelta(t *testing.T, before, after cache.Stats) cache.Stats {
	t.Helper()
	var d cache.Stats
	b, a, out := reflect.ValueOf(before), reflect.ValueOf(after), reflect.ValueOf(&d).Elem()
	for i := range out.NumField() {
		switch f := out.Field(i); f.Kind() {
		case reflect.Uint64:
			f.SetUint(a.Field(i).Uint() - b.Field(i).Uint()) // wraps on a decrease: a monotonic counter never does
		case reflect.Int:
			f.SetInt(a.Field(i).Int() - b.Field(i).Int())
		default:
			t.Fatalf("Stats.%s: a field of kind %s the delta does not know", out.Type().Field(i).Name, f.Kind())
		}
	}
	return d
}

// deltaEnv is what a row of TestStatsDeltas works with.
type deltaEnv struct {
	c     *cache.Cache[string, int]
	clock *fakeClock
	owned atomic.Bool // what Owns answers for "x" (other keys are owned)
	wg    sync.WaitGroup
}

// slowGet starts a Get of key whose load waits for release, and lets it
// run until it blocks.
func (e *deltaEnv) slowGet(ctx context.Context, key string, release <-chan struct{}) {
	e.wg.Go(func() {
		_, _ = e.c.Get(ctx, key, func(context.Context) (int, error) { <-release; return 1, nil })
	})
	synctest.Wait()
}

// closed returns a closed channel: a slowGet whose load does not wait.
func closed() <-chan struct{} {
	ch := make(chan struct{})
	close(ch)
	return ch
}

// deltaRow is a row of TestStatsDeltas: setup runs first, then the delta of
// op alone is compared with want (a Stats of deltas; every field not named
// must not move). cfg's zero Capacity is 10.
type deltaRow struct {
	name  string
	cfg   cache.Config[string]
	setup func(e *deltaEnv)
	op    func(e *deltaEnv)
	want  cache.Stats
}

const deltaBound = time.Second

var deltaBounded = cache.Config[string]{Capacity: 10, MaxStaleness: deltaBound}

func deltaSet(keys ...string) func(e *deltaEnv) {
	return func(e *deltaEnv) {
		for _, k := range keys {
			e.c.Set(k, 1)
		}
	}
}

func deltaGet(key string) func(e *deltaEnv) {
	return func(e *deltaEnv) { _, _ = e.c.Get(context.Background(), key, loadOne) }
}

func deltaEvent(kind cache.EventKind, key string, version uint64, refill bool) cache.Event[string, int] {
	return cache.Event[string, int]{Kind: kind, Key: key, Version: version, Value: 2, Refill: refill}
}

// readDeltaRows are the reads: hits, misses, coalesced misses, GetValid.
func readDeltaRows() []deltaRow {
	return []deltaRow{
		{name: "hit", setup: deltaSet("k"), op: deltaGet("k"), want: cache.Stats{Hits: 1}},
		{name: "miss", op: deltaGet("k"), want: cache.Stats{Misses: 1, Loads: 1, Len: 1}},
		{
			name: "miss, load fails",
			op: func(e *deltaEnv) {
				_, _ = e.c.Get(context.Background(), "k", func(context.Context) (int, error) { return 0, errLoad })
			},
			want: cache.Stats{Misses: 1, Loads: 1, LoadErrors: 1},
		},
		{
			name: "miss, load panics",
			op: func(e *deltaEnv) {
				_, _ = e.c.Get(context.Background(), "k", func(context.Context) (int, error) { panic("boom") })
			},
			want: cache.Stats{Misses: 1, Loads: 1, LoadErrors: 1},
		},
		{
			name: "coalesced miss: a herd of 3",
			op: func(e *deltaEnv) {
				release := make(chan struct{})
				for range 3 {
					e.slowGet(context.Background(), "k", release)
				}
				close(release)
				e.wg.Wait()
			},
			want: cache.Stats{Misses: 3, Loads: 1, Coalesced: 2, Len: 1},
		},
		{name: "TryGet hit", setup: deltaSet("k"), op: func(e *deltaEnv) { e.c.TryGet("k") }, want: cache.Stats{Hits: 1}},
		{name: "TryGet miss", op: func(e *deltaEnv) { e.c.TryGet("k") }, want: cache.Stats{Misses: 1}},
		{name: "Contains", setup: deltaSet("k"), op: func(e *deltaEnv) { e.c.Contains("k"); e.c.Contains("a") }},
		{
			name:  "GetMany: a hit and a miss",
			setup: deltaSet("a"),
			op: func(e *deltaEnv) {
				_, _ = e.c.GetMany(context.Background(), []string{"a", "b"}, func(_ context.Context, ks []string) ([]int, error) {
					return make([]int, len(ks)), nil
				})
			},
			want: cache.Stats{Hits: 1, Misses: 1, Loads: 1, Len: 1},
		},
		{
			name:  "GetValid rejects",
			setup: deltaSet("k"),
			op: func(e *deltaEnv) {
				_, _ = e.c.GetValid(context.Background(), "k", func(int) bool { return false }, loadOne)
			},
			want: cache.Stats{Misses: 1, Loads: 1, Invalidations: 1},
		},
	}
}

// writeDeltaRows are the invalidations, refills, checkpoints, evictions and
// dropped fills.
func writeDeltaRows() []deltaRow {
	return []deltaRow{
		{name: "invalidation: Delete", setup: deltaSet("k"), op: func(e *deltaEnv) { e.c.Delete("k") }, want: cache.Stats{Invalidations: 1, Len: -1}},
		{name: "Delete of a key not cached", op: func(e *deltaEnv) { e.c.Delete("k") }},
		{
			name: "invalidation: Write event", setup: deltaSet("k"),
			op:   func(e *deltaEnv) { e.c.Apply(deltaEvent(cache.Write, "k", 1, false)) },
			want: cache.Stats{Invalidations: 1, Len: -1},
		},
		{
			name: "invalidation: Delete event of a key not cached",
			op:   func(e *deltaEnv) { e.c.Apply(deltaEvent(cache.Delete, "k", 1, false)) },
		},
		{
			name: "refill", setup: deltaSet("k"),
			op:   func(e *deltaEnv) { e.c.Apply(deltaEvent(cache.Write, "k", 1, true)) },
			want: cache.Stats{Refills: 1},
		},
		{
			name: "refill replayed under the watermark: invalidates",
			setup: func(e *deltaEnv) {
				e.c.Set("k", 1)
				e.c.Apply(deltaEvent(cache.Checkpoint, "", 5, false))
			},
			op:   func(e *deltaEnv) { e.c.Apply(deltaEvent(cache.Write, "k", 4, true)) },
			want: cache.Stats{Invalidations: 1, Len: -1},
		},
		{
			name: "checkpoint", op: func(e *deltaEnv) { e.c.Apply(deltaEvent(cache.Checkpoint, "", 5, false)) },
			want: cache.Stats{Checkpoints: 1, Watermark: 5},
		},
		{
			name:  "checkpoint older than the watermark: ignored",
			setup: func(e *deltaEnv) { e.c.Apply(deltaEvent(cache.Checkpoint, "", 5, false)) },
			op:    func(e *deltaEnv) { e.c.Apply(deltaEvent(cache.Checkpoint, "", 4, false)) },
		},
		{
			name: "eviction: a Set into a full cache", cfg: cache.Config[string]{Capacity: 2},
			setup: deltaSet("a", "b"), op: deltaSet("c"), want: cache.Stats{Evictions: 1},
		},
		{
			name: "fill dropped: Deleted during its load",
			op: func(e *deltaEnv) {
				_, _ = e.c.Get(context.Background(), "k", func(context.Context) (int, error) { e.c.Delete("k"); return 1, nil })
			},
			want: cache.Stats{Misses: 1, Loads: 1, DroppedFills: 1},
		},
	}
}

// staleDeltaRows are the reads beyond the staleness bound.
func staleDeltaRows() []deltaRow {
	return []deltaRow{
		{
			name: "stale bypass: the key beyond the bound", cfg: deltaBounded,
			setup: func(e *deltaEnv) { e.c.Set("k", 1); e.clock.Advance(deltaBound + 1) },
			op:    deltaGet("k"),
			want:  cache.Stats{Misses: 1, StaleBypass: 1, Loads: 1},
		},
		{
			name: "stale bypass: a joined load slower than the bound", cfg: deltaBounded,
			setup: func(e *deltaEnv) {}, // the op's own leader
			op: func(e *deltaEnv) {
				release := make(chan struct{})
				e.slowGet(context.Background(), "k", release)
				e.clock.Advance(deltaBound + 1)
				e.slowGet(context.Background(), "k", closed()) // joins, then reloads with a load that does not block
				close(release)
				e.wg.Wait()
			},
			want: cache.Stats{Misses: 2, StaleBypass: 1, Loads: 2, Len: 1},
		},
		{
			// One Get, both ways: it finds the key beyond the bound, joins
			// a load that started more than the bound before it, and loads
			// again. It counts 2 in StaleBypass, 1 in Misses (Stats says so).
			name: "stale bypass twice in one Get", cfg: deltaBounded,
			setup: func(e *deltaEnv) {
				e.c.Set("k", 1)
				e.clock.Advance(deltaBound + 1)
			},
			op: func(e *deltaEnv) {
				release := make(chan struct{})
				e.slowGet(context.Background(), "k", release) // a stale bypass: 1
				e.clock.Advance(deltaBound + 1)
				e.slowGet(context.Background(), "k", closed()) // 2 more, one Get
				close(release)
				e.wg.Wait()
			},
			want: cache.Stats{Misses: 2, StaleBypass: 3, Loads: 2},
		},
		{
			name: "stale bypass: TryGet of the key beyond the bound", cfg: deltaBounded,
			setup: func(e *deltaEnv) { e.c.Set("k", 1); e.clock.Advance(deltaBound + 1) },
			op:    func(e *deltaEnv) { e.c.TryGet("k") },
			want:  cache.Stats{Misses: 1, StaleBypass: 1},
		},
		{
			name: "stale bypass: a Get not owned joins a load slower than the bound",
			cfg:  cache.Config[string]{Capacity: 10, MaxStaleness: deltaBound, Owns: func(k string) bool { return k != "x" }},
			op: func(e *deltaEnv) {
				release := make(chan struct{})
				e.slowGet(context.Background(), "x", release)
				e.clock.Advance(deltaBound + 1)
				e.slowGet(context.Background(), "x", closed())
				close(release)
				e.wg.Wait()
			},
			want: cache.Stats{NotOwned: 2, StaleBypass: 1, Loads: 2},
		},
	}
}

// ownCancelRows are the keys not owned and the callers that leave.
func ownCancelRows() []deltaRow {
	return []deltaRow{
		{
			name: "key not owned", cfg: cache.Config[string]{Capacity: 10, Owns: func(k string) bool { return k != "x" }},
			op: deltaGet("x"), want: cache.Stats{NotOwned: 1, Loads: 1},
		},
		{
			name:  "Set of a key no longer owned: invalidates",
			setup: func(e *deltaEnv) { e.owned.Store(true); e.c.Set("x", 1); e.owned.Store(false) },
			op:    deltaSet("x"), want: cache.Stats{Invalidations: 1, Len: -1},
		},
		{
			name: "cancelled: a Get on a context already done",
			op: func(e *deltaEnv) {
				ctx, cancel := context.WithCancel(context.Background())
				cancel()
				_, _ = e.c.Get(ctx, "k", loadOne)
			},
			want: cache.Stats{Misses: 1},
		},
		{
			name: "cancelled: a leader leaves, its load goes on and stores",
			op: func(e *deltaEnv) {
				ctx, leave := context.WithCancel(context.Background())
				release := make(chan struct{})
				e.slowGet(ctx, "k", release)
				leave()
				synctest.Wait()
				close(release)
				e.wg.Wait()
				synctest.Wait()
			},
			want: cache.Stats{Misses: 1, Loads: 1, Len: 1},
		},
		{
			name: "cancelled: a joiner leaves",
			op: func(e *deltaEnv) {
				ctx, leave := context.WithCancel(context.Background())
				release := make(chan struct{})
				e.slowGet(context.Background(), "k", release)
				e.slowGet(ctx, "k", release)
				leave()
				synctest.Wait()
				close(release)
				e.wg.Wait()
			},
			want: cache.Stats{Misses: 2, Loads: 1, Len: 1},
		},
	}
}

// TestStatsDeltas pins, scenario by scenario, exactly what one operation
// adds to every Stats field, against what Stats and the package doc say:
// setup runs first, then the delta of op alone is compared with want (a
// Stats of deltas; every field not named must not move).
func TestStatsDeltas(t *testing.T) {
	var tests []deltaRow
	for _, rows := range [][]deltaRow{readDeltaRows(), writeDeltaRows(), staleDeltaRows(), ownCancelRows()} {
		tests = append(tests, rows...)
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				e := &deltaEnv{clock: &fakeClock{}}
				cfg := tt.cfg
				if cfg.Capacity == 0 {
					cfg.Capacity = 10
				}
				if cfg.Owns == nil {
					cfg.Owns = func(k string) bool { return k != "x" || e.owned.Load() }
				}
				cfg.Clock = e.clock
				e.c = newCache[string, int](t, cfg)
				if tt.setup != nil {
					tt.setup(e)
				}
				before := e.c.Stats()
				tt.op(e)
				e.wg.Wait()
				assert.Equal(t, tt.want, statsDelta(t, before, e.c.Stats()))
			})
		})
	}
}
