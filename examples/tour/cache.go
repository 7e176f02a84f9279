package main

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tierkit/tierkit/cache"
)

func init() {
	sections = append(sections, section{
		order: 40,
		name:  "cache",
		title: "a read-through cache: one load per miss storm, W-TinyLFU hit ratio, CDC freshness, bounded staleness",
		run:   tourCache,
	})
}

func tourCache(w io.Writer) error {
	for _, step := range []func(io.Writer) error{cacheHerd, cacheZipf, cacheCDC, cacheStaleness} {
		if err := step(w); err != nil {
			return err
		}
	}
	return nil
}

// cacheHerd sends 1,000 concurrent misses of one key and counts backend loads.
func cacheHerd(w io.Writer) error {
	c, err := cache.New[string, string](cache.Config[string]{Capacity: 100})
	if err != nil {
		return err
	}
	const herd = 1000
	release := make(chan struct{})
	var loads atomic.Int64
	load := func(context.Context) (string, error) {
		loads.Add(1)
		<-release
		return "row", nil
	}
	var wg sync.WaitGroup
	for range herd {
		wg.Go(func() { _, _ = c.Get(context.Background(), "hot", load) })
	}
	// Hold the load until every caller has joined it (bounded: 500 ms at most;
	// a caller arriving later finds the filled entry, a hit).
	for deadline := time.Now().Add(500 * time.Millisecond); c.Stats().Coalesced < herd-1 && time.Now().Before(deadline); {
		runtime.Gosched()
	}
	close(release)
	wg.Wait()
	s := c.Stats()
	if err := verify(cacheHerdClaims(herd, s, loads.Load())...); err != nil {
		return err
	}
	fmt.Fprintf(w, "   %d concurrent reads of one missing key -> %d backend load(s): %d callers shared it, %d hit the filled entry\n",
		herd, loads.Load(), s.Coalesced, s.Hits)
	return nil
}

// cacheHerdClaims is what the herd line and the section's title state: one
// load for the storm, every other read shared it or hit the entry it filled.
func cacheHerdClaims(herd int, s cache.Stats, loads int64) []claim {
	return []claim{
		{loads == 1 && s.Loads == 1, fmt.Sprintf("a storm of %d misses makes 1 backend load, not %d (Stats.Loads %d)", herd, loads, s.Loads)},
		{s.Coalesced+s.Hits == uint64(herd-1), fmt.Sprintf("the other %d reads shared the load or hit, not %d + %d", herd-1, s.Coalesced, s.Hits)},
	}
}

// cacheZipf replays a Zipf workload through a small cache.
func cacheZipf(w io.Writer) error {
	const capacity, keyspace, requests = 500, 20_000, 100_000
	c, err := cache.New[uint64, uint64](cache.Config[uint64]{Capacity: capacity})
	if err != nil {
		return err
	}
	z := rand.NewZipf(rand.New(rand.NewPCG(1, 2)), 1.01, 1, keyspace-1)
	for range requests {
		k := z.Uint64()
		if _, ok := c.TryGet(k); !ok {
			c.Set(k, k)
		}
	}
	s := c.Stats()
	fmt.Fprintf(w, "   Zipf(1.01) over %d keys, %d requests, capacity %d -> hit ratio %.1f%%, %d evictions, size %d\n",
		keyspace, requests, capacity, 100*s.HitRatio(), s.Evictions, s.Len)
	return nil
}

// cacheCDC shows a write on the change stream invalidating a cached row and a
// load racing the write losing.
func cacheCDC(w io.Writer) error {
	c, err := cache.New[string, int](cache.Config[string]{Capacity: 100})
	if err != nil {
		return err
	}
	var version atomic.Int64
	version.Store(1)
	read := func(context.Context) (int, error) { return int(version.Load()), nil }
	ctx := context.Background()
	before, _ := c.Get(ctx, "user:1", read)
	version.Store(2) // the store commits version 2 ...
	cached, _ := c.Get(ctx, "user:1", read)
	c.Apply(cache.Event[string, int]{Kind: cache.Write, Key: "user:1", Version: 2}) // ... and the stream says so
	after, _ := c.Get(ctx, "user:1", read)
	fmt.Fprintf(w, "   read v%d; store commits v2: cached read still v%d; CDC write applied -> next read v%d\n",
		before, cached, after)

	// A load that read version 2 finishes after the write of version 3 was applied.
	loaded, release := make(chan struct{}), make(chan struct{})
	done := make(chan int)
	c.Delete("user:1")
	go func() {
		v, _ := c.Get(ctx, "user:1", func(context.Context) (int, error) {
			v := int(version.Load())
			close(loaded)
			<-release
			return v, nil
		})
		done <- v
	}()
	<-loaded
	version.Store(3)
	c.Apply(cache.Event[string, int]{Kind: cache.Write, Key: "user:1", Version: 3})
	close(release)
	racer := <-done
	next, _ := c.Get(ctx, "user:1", read)
	fmt.Fprintf(w, "   a load that read v%d ends after the v3 invalidation: not stored (dropped fills %d), next read v%d\n",
		racer, c.Stats().DroppedFills, next)
	return nil
}

// manualClock is a clock the tour moves by hand.
type manualClock struct{ now time.Time }

func (m *manualClock) Now() time.Time { return m.now }

// cacheStaleness silences the stream past the bound and counts bypasses.
func cacheStaleness(w io.Writer) error {
	clock := &manualClock{now: time.Unix(0, 0)}
	const bound = 2 * time.Second
	c, err := cache.New[int, int](cache.Config[int]{Capacity: 100, MaxStaleness: bound, Clock: clock})
	if err != nil {
		return err
	}
	// Entries refilled from the stream are vouched for by checkpoints only.
	for k := range 50 {
		c.Set(k, 0)
		c.Apply(cache.Event[int, int]{Kind: cache.Write, Key: k, Version: 1, Value: 1, Refill: true})
	}
	c.Apply(cache.Event[int, int]{Kind: cache.Checkpoint, Version: 1})
	var loads atomic.Int64
	load := func(context.Context) (int, error) { loads.Add(1); return 1, nil }
	readAll := func() (hits, bypass uint64) {
		s0 := c.Stats()
		for k := range 50 {
			_, _ = c.Get(context.Background(), k, load)
		}
		s1 := c.Stats()
		return s1.Hits - s0.Hits, s1.StaleBypass - s0.StaleBypass
	}
	clock.now = clock.now.Add(time.Second)
	h1, b1 := readAll()
	clock.now = clock.now.Add(2 * time.Second) // silent for 3 s > the 2 s bound
	h2, b2 := readAll()
	loadsSilent := loads.Load()
	clock.now = clock.now.Add(time.Second)
	c.Apply(cache.Event[int, int]{Kind: cache.Checkpoint, Version: 2})
	h3, b3 := readAll()
	fmt.Fprintf(w, "   bound %v: stream 1 s old -> %d hits, %d bypasses; silent 3 s -> %d hits, %d bypasses (%d reloads); checkpoint -> %d hits, %d bypasses\n",
		bound, h1, b1, h2, b2, loadsSilent, h3, b3)
	return nil
}
