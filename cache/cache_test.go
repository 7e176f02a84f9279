package cache_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/cache"
)

// fakeClock is a Clock moved by hand.
type fakeClock struct{ ns atomic.Int64 }

func (f *fakeClock) Now() time.Time          { return time.Unix(0, f.ns.Load()) }
func (f *fakeClock) Advance(d time.Duration) { f.ns.Add(int64(d)) }

func newCache[K comparable, V any](t *testing.T, cfg cache.Config[K]) *cache.Cache[K, V] {
	t.Helper()
	c, err := cache.New[K, V](cfg)
	require.NoError(t, err)
	return c
}

func constLoad[V any](v V, calls *atomic.Int64) func(context.Context) (V, error) {
	return func(context.Context) (V, error) {
		calls.Add(1)
		return v, nil
	}
}

func TestConfigValidate(t *testing.T) {
	tests := []struct {
		give cache.Config[string]
		want error
	}{
		{give: cache.Config[string]{}, want: nil},
		{give: cache.Config[string]{Capacity: 1, MaxStaleness: time.Second}, want: nil},
		{give: cache.Config[string]{Capacity: -1}, want: cache.ErrCapacity},
		{give: cache.Config[string]{MaxStaleness: -time.Second}, want: cache.ErrStaleness},
	}
	for _, tt := range tests {
		_, err := cache.New[string, int](tt.give)
		assert.ErrorIs(t, err, tt.want, "New(%+v)", tt.give)
		c := newCache[string, int](t, cache.Config[string]{})
		assert.ErrorIs(t, c.SetConfig(tt.give), tt.want, "SetConfig(%+v)", tt.give)
	}
}

func TestDefaults(t *testing.T) {
	c := newCache[string, int](t, cache.Config[string]{})
	assert.Equal(t, cache.DefaultCapacity, c.Stats().Capacity)
	assert.Equal(t, 0, c.Len())
}

func TestGetReadThrough(t *testing.T) {
	c := newCache[string, int](t, cache.Config[string]{Capacity: 10})
	var calls atomic.Int64
	ctx := context.Background()
	for range 3 {
		v, err := c.Get(ctx, "a", constLoad(1, &calls))
		require.NoError(t, err)
		assert.Equal(t, 1, v)
	}
	assert.Equal(t, int64(1), calls.Load())
	s := c.Stats()
	assert.Equal(t, uint64(2), s.Hits)
	assert.Equal(t, uint64(1), s.Misses)
	assert.Equal(t, uint64(1), s.Loads)
	assert.InDelta(t, 2.0/3, s.HitRatio(), 1e-9)
}

func TestGetLoadError(t *testing.T) {
	c := newCache[string, int](t, cache.Config[string]{Capacity: 10})
	errDown := errors.New("backend down")
	_, err := c.Get(context.Background(), "a", func(context.Context) (int, error) { return 0, errDown })
	require.ErrorIs(t, err, errDown)
	_, ok := c.TryGet("a")
	assert.False(t, ok, "a failed load stores nothing")
	assert.Equal(t, uint64(1), c.Stats().LoadErrors)
}

func TestHerdMakesOneLoad(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := newCache[string, int](t, cache.Config[string]{Capacity: 10})
		release := make(chan struct{})
		var calls atomic.Int64
		load := func(context.Context) (int, error) {
			calls.Add(1)
			<-release
			return 7, nil
		}
		const herd = 1000
		var wg sync.WaitGroup
		for range herd {
			wg.Go(func() {
				v, err := c.Get(t.Context(), "hot", load)
				assert.NoError(t, err)
				assert.Equal(t, 7, v)
			})
		}
		synctest.Wait() // every Get is in the flight
		close(release)
		wg.Wait()
		s := c.Stats()
		assert.Equal(t, int64(1), calls.Load())
		assert.Equal(t, uint64(1), s.Loads)
		assert.Equal(t, uint64(herd-1), s.Coalesced)
	})
}

// TestStaleFillLoses is guava#1881 / otter#137: a load that read the old value
// finishes after the invalidation of its key and must not store it.
func TestStaleFillLoses(t *testing.T) {
	for _, kind := range []string{"write", "refill", "delete event", "Delete", "Set"} {
		t.Run(kind, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				c := newCache[string, int](t, cache.Config[string]{Capacity: 10})
				c.Set("k", 0) // cached, so a refill has an entry to update
				c.Delete("k")
				if kind == "refill" {
					c.Set("k", 0)
				}
				loaded, release := make(chan struct{}), make(chan struct{})
				var got int
				done := make(chan struct{})
				go func() {
					defer close(done)
					c.Delete("k")
					got, _ = c.Get(context.Background(), "k", func(context.Context) (int, error) {
						close(loaded)
						<-release
						return 1, nil // version 1, read before the write below
					})
				}()
				<-loaded
				switch kind {
				case "write":
					c.Apply(cache.Event[string, int]{Kind: cache.Write, Key: "k", Version: 2})
				case "refill":
					c.Set("k", 0)
					c.Apply(cache.Event[string, int]{Kind: cache.Write, Key: "k", Version: 2, Value: 2, Refill: true})
				case "delete event":
					c.Apply(cache.Event[string, int]{Kind: cache.Delete, Key: "k", Version: 2})
				case "Delete":
					c.Delete("k")
				case "Set":
					c.Set("k", 2)
				}
				close(release)
				<-done
				assert.Equal(t, 1, got, "the caller still gets its load")
				v, ok := c.TryGet("k")
				if ok {
					assert.Equal(t, 2, v, "never the stale load")
				}
				assert.Equal(t, uint64(1), c.Stats().DroppedFills)
				// The next read is fresh.
				v, err := c.Get(context.Background(), "k", func(context.Context) (int, error) { return 2, nil })
				require.NoError(t, err)
				assert.Equal(t, 2, v)
			})
		})
	}
}

// TestInvalidationForgetsFlight: a read that starts after an invalidation does
// not join a load that started before it.
func TestInvalidationForgetsFlight(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := newCache[string, int](t, cache.Config[string]{Capacity: 10})
		loaded, release := make(chan struct{}), make(chan struct{})
		go func() {
			_, _ = c.Get(context.Background(), "k", func(context.Context) (int, error) {
				close(loaded)
				<-release
				return 1, nil
			})
		}()
		<-loaded
		c.Apply(cache.Event[string, int]{Kind: cache.Write, Key: "k", Version: 2})
		v, err := c.Get(context.Background(), "k", func(context.Context) (int, error) { return 2, nil })
		require.NoError(t, err)
		assert.Equal(t, 2, v)
		close(release)
		synctest.Wait()
		v, ok := c.TryGet("k")
		assert.True(t, ok)
		assert.Equal(t, 2, v, "the late stale load did not overwrite")
	})
}

func TestApplyVersions(t *testing.T) {
	type ev = cache.Event[string, string]
	tests := []struct {
		name   string
		give   []ev
		want   string
		wantOK bool
	}{
		{"refill updates", []ev{{Kind: cache.Write, Key: "k", Version: 5, Value: "v5", Refill: true}}, "v5", true},
		{"older refill ignored", []ev{
			{Kind: cache.Write, Key: "k", Version: 5, Value: "v5", Refill: true},
			{Kind: cache.Write, Key: "k", Version: 4, Value: "v4", Refill: true},
		}, "v5", true},
		{"older write ignored", []ev{
			{Kind: cache.Write, Key: "k", Version: 5, Value: "v5", Refill: true},
			{Kind: cache.Write, Key: "k", Version: 3},
		}, "v5", true},
		{"newer write invalidates", []ev{
			{Kind: cache.Write, Key: "k", Version: 5, Value: "v5", Refill: true},
			{Kind: cache.Write, Key: "k", Version: 6},
		}, "", false},
		{"delete invalidates", []ev{{Kind: cache.Delete, Key: "k", Version: 1}}, "", false},
		{"unversioned write invalidates", []ev{{Kind: cache.Write, Key: "k"}}, "", false},
		{"refill of uncached key stays uncached", []ev{
			{Kind: cache.Delete, Key: "k"},
			{Kind: cache.Write, Key: "k", Version: 9, Value: "v9", Refill: true},
		}, "", false},
		{"unknown kind ignored", []ev{{Key: "k"}}, "v0", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := newCache[string, string](t, cache.Config[string]{Capacity: 10})
			c.Set("k", "v0")
			c.Apply(tt.give...)
			got, ok := c.TryGet("k")
			assert.Equal(t, tt.wantOK, ok)
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestStalenessBound(t *testing.T) {
	clock := &fakeClock{}
	const bound = time.Second
	c := newCache[string, int](t, cache.Config[string]{Capacity: 10, MaxStaleness: bound, Clock: clock})
	var calls atomic.Int64
	ctx := context.Background()
	get := func() int {
		v, err := c.Get(ctx, "k", constLoad(int(calls.Load())+1, &calls))
		require.NoError(t, err)
		return v
	}
	assert.Equal(t, 1, get(), "first read loads")
	clock.Advance(bound)
	assert.Equal(t, 1, get(), "at the bound: hit")
	clock.Advance(time.Nanosecond)
	assert.Equal(t, 2, get(), "past the bound, silent stream: bypass and reload")
	assert.Equal(t, uint64(1), c.Stats().StaleBypass)
	assert.Equal(t, 2, get(), "the reload is vouched for by its own load time")

	// A refilled value is vouched for by checkpoints only.
	c.Apply(cache.Event[string, int]{Kind: cache.Write, Key: "k", Version: 1, Value: 10, Refill: true})
	c.Apply(cache.Event[string, int]{Kind: cache.Checkpoint, Version: 1})
	clock.Advance(bound / 2)
	assert.Equal(t, 10, get())
	clock.Advance(bound / 2)
	c.Apply(cache.Event[string, int]{Kind: cache.Checkpoint, Version: 2})
	clock.Advance(bound / 2)
	assert.Equal(t, 10, get(), "renewed by the checkpoint")
	c.Apply(cache.Event[string, int]{Kind: cache.Checkpoint, Version: 1}) // older: ignored
	clock.Advance(bound/2 + 1)
	_, ok := c.TryGet("k")
	assert.False(t, ok, "an older watermark does not renew the bound")
	s := c.Stats()
	assert.Equal(t, uint64(2), s.Watermark)
	assert.Equal(t, uint64(2), s.Checkpoints)
	assert.Equal(t, bound+1, c.CheckpointAge())

	// Raising the bound at runtime serves the entry again.
	cfg := c.Config()
	cfg.MaxStaleness = time.Hour
	require.NoError(t, c.SetConfig(cfg))
	_, ok = c.TryGet("k")
	assert.True(t, ok)
}

// TestCheckpointCut: a checkpoint that says when it was cut renews the bound
// from that time, not from its (late) delivery; a Cut in the future counts as
// the delivery time.
func TestCheckpointCut(t *testing.T) {
	clock := &fakeClock{}
	const bound = time.Second
	c := newCache[string, int](t, cache.Config[string]{Capacity: 10, MaxStaleness: bound, Clock: clock})
	c.Apply(cache.Event[string, int]{Kind: cache.Write, Key: "k", Version: 1, Value: 7, Refill: true})
	c.Set("k", 7)
	clock.Advance(bound)
	cut := clock.Now()
	clock.Advance(bound / 2) // the checkpoint takes half the bound to arrive
	c.Apply(cache.Event[string, int]{Kind: cache.Checkpoint, Version: 2, Cut: cut})
	assert.Equal(t, bound/2, c.CheckpointAge(), "the bound counts from the cut")
	clock.Advance(bound/2 + 1)
	_, ok := c.TryGet("k")
	assert.False(t, ok, "past cut + bound: no hit, although delivery + bound is not past")

	c.Apply(cache.Event[string, int]{Kind: cache.Checkpoint, Version: 3, Cut: clock.Now().Add(time.Hour)})
	assert.Equal(t, time.Duration(0), c.CheckpointAge(), "a cut in the future counts as now")
}

func TestContainsCountsNothing(t *testing.T) {
	clock := &fakeClock{}
	c := newCache[string, int](t, cache.Config[string]{Capacity: 10, MaxStaleness: time.Second, Clock: clock,
		Owns: func(k string) bool { return k != "other" }})
	c.Set("k", 1)
	c.Set("other", 2)
	before := c.Stats()
	for _, tc := range []struct {
		key  string
		want bool
	}{{"k", true}, {"absent", false}, {"other", false}} {
		assert.Equal(t, tc.want, c.Contains(tc.key), tc.key)
	}
	clock.Advance(time.Second + 1)
	assert.False(t, c.Contains("k"), "beyond the staleness bound")
	after := c.Stats()
	assert.Equal(t, before.Hits, after.Hits)
	assert.Equal(t, before.Misses, after.Misses)
	assert.Equal(t, before.StaleBypass, after.StaleBypass)
	assert.Equal(t, before.NotOwned, after.NotOwned)
}

func TestOwnership(t *testing.T) {
	owns := func(k int) bool { return k%2 == 0 }
	c := newCache[int, int](t, cache.Config[int]{Capacity: 100, Owns: owns})
	var calls atomic.Int64
	for range 3 {
		for k := range 4 {
			v, err := c.Get(context.Background(), k, constLoad(k, &calls))
			require.NoError(t, err)
			assert.Equal(t, k, v)
		}
	}
	assert.Equal(t, int64(2+2*3), calls.Load(), "owned keys load once, the others every time")
	c.Set(1, 1)
	_, ok := c.TryGet(1)
	assert.False(t, ok, "Set stores no key not owned")
	assert.Equal(t, 2, c.Len())
	assert.Equal(t, uint64(3*2+1), c.Stats().NotOwned)

	// Handing keys over: once not owned, cached entries are not served.
	require.NoError(t, c.SetConfig(cache.Config[int]{Capacity: 100, Owns: func(int) bool { return false }}))
	_, ok = c.TryGet(0)
	assert.False(t, ok)
}

func TestCapacityBound(t *testing.T) {
	c := newCache[int, int](t, cache.Config[int]{Capacity: 100})
	for i := range 10_000 {
		c.Set(i%1000, i)
		if _, ok := c.TryGet(i % 37); !ok {
			c.Set(i%37, i)
		}
		require.LessOrEqual(t, c.Len(), 100)
	}
	s := c.Stats()
	assert.Equal(t, 100, s.Len)
	assert.Positive(t, s.Evictions)
	_, ok := c.TryGet(1) // hot key 1 survives the scan of 1000 keys
	assert.True(t, ok)

	require.NoError(t, c.SetConfig(cache.Config[int]{Capacity: 10}))
	assert.Equal(t, 10, c.Len(), "shrinking evicts at once")
	require.NoError(t, c.SetConfig(cache.Config[int]{Capacity: 1}))
	for i := range 100 {
		c.Set(i, i)
	}
	assert.Equal(t, 1, c.Len())
}

func TestGetContextCancelled(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := newCache[string, int](t, cache.Config[string]{Capacity: 10})
		ctx, cancel := context.WithCancel(context.Background())
		started := make(chan struct{})
		done := make(chan error, 1)
		go func() {
			_, err := c.Get(ctx, "k", func(ctx context.Context) (int, error) {
				close(started)
				<-ctx.Done()
				return 0, ctx.Err()
			})
			done <- err
		}()
		<-started
		cancel()
		assert.ErrorIs(t, <-done, context.Canceled)
		synctest.Wait()
		_, ok := c.TryGet("k")
		assert.False(t, ok)
	})
}

func ExampleCache_Get() {
	c, err := cache.New[string, string](cache.Config[string]{Capacity: 1000})
	if err != nil {
		panic(err)
	}
	load := func(context.Context) (string, error) { return "v1", nil }
	v, _ := c.Get(context.Background(), "user:1", load)
	fmt.Println(v)
	// A change arrives on the stream: the entry is invalidated.
	c.Apply(cache.Event[string, string]{Kind: cache.Write, Key: "user:1", Version: 2})
	v, _ = c.Get(context.Background(), "user:1", func(context.Context) (string, error) { return "v2", nil })
	fmt.Println(v)
	s := c.Stats()
	fmt.Println("loads:", s.Loads, "invalidations:", s.Invalidations)
	// Output:
	// v1
	// v2
	// loads: 2 invalidations: 1
}

func ExampleCache_Apply() {
	clock := &fakeClock{}
	c, _ := cache.New[string, int](cache.Config[string]{MaxStaleness: time.Second, Clock: clock})
	c.Set("k", 1)
	c.Apply(cache.Event[string, int]{Kind: cache.Checkpoint, Version: 100})
	clock.Advance(2 * time.Second) // the stream goes silent
	_, ok := c.TryGet("k")
	fmt.Println("served while silent past the bound:", ok)
	c.Apply(cache.Event[string, int]{Kind: cache.Checkpoint, Version: 101})
	v, ok := c.TryGet("k")
	fmt.Println("after a checkpoint:", v, ok)
	fmt.Println("stale bypasses:", c.Stats().StaleBypass)
	// Output:
	// served while silent past the bound: false
	// after a checkpoint: 1 true
	// stale bypasses: 1
}

// A stream whose checkpoints say when they were cut: the bound counts from the
// cut, so a checkpoint delivered late does not stretch it.
func ExampleEvent_cut() {
	clock := &fakeClock{}
	c, _ := cache.New[string, int](cache.Config[string]{MaxStaleness: time.Second, Clock: clock})
	c.Set("k", 1)
	cut := clock.Now()
	clock.Advance(900 * time.Millisecond) // the checkpoint is delivered late
	c.Apply(cache.Event[string, int]{Kind: cache.Checkpoint, Version: 7, Cut: cut})
	fmt.Println("checkpoint age:", c.CheckpointAge())
	clock.Advance(200 * time.Millisecond) // 1.1 s after the cut
	_, ok := c.TryGet("k")
	fmt.Println("hit:", ok)
	// Output:
	// checkpoint age: 900ms
	// hit: false
}

// Contains lets a host serve hits inline and hand only loads elsewhere,
// without counting the probe.
func ExampleCache_Contains() {
	c, _ := cache.New[string, string](cache.Config[string]{Capacity: 10})
	c.Set("a", "1")
	for _, k := range []string{"a", "b"} {
		if c.Contains(k) {
			v, _ := c.TryGet(k)
			fmt.Println(k, "hit:", v)
		} else {
			fmt.Println(k, "miss: load it on a worker")
		}
	}
	s := c.Stats()
	fmt.Println("hits:", s.Hits, "misses:", s.Misses)
	// Output:
	// a hit: 1
	// b miss: load it on a worker
	// hits: 1 misses: 0
}
