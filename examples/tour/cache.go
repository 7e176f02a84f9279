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
	if err := verify(cacheCDCClaims(before, cached, after)...); err != nil {
		return err
	}
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
	if err := verify(cacheRacingFillClaims(racer, c.Stats().DroppedFills, next)...); err != nil {
		return err
	}
	fmt.Fprintf(w, "   a load that read v%d ends after the v3 invalidation: not stored (dropped fills %d), next read v%d\n",
		racer, c.Stats().DroppedFills, next)
	return nil
}

// cacheCDCClaims is what the first CDC line states: the entry read at v1
// still serves v1 after the store commits v2, and the stream's write of v2
// makes the next read load v2.
func cacheCDCClaims(before, cached, after int) []claim {
	return []claim{
		{before == 1, fmt.Sprintf("the first read loads v1, not v%d", before)},
		{cached == 1, fmt.Sprintf("cached read still v1 before the stream says so, not v%d", cached)},
		{after == 2, fmt.Sprintf("CDC write applied -> next read v2, not v%d", after)},
	}
}

// cacheRacingFillClaims is what the racing-load line states: the load read
// v2, its fill was dropped (not stored) because the v3 write came first, and
// the next read loads v3.
func cacheRacingFillClaims(racer int, dropped uint64, next int) []claim {
	return []claim{
		{racer == 2, fmt.Sprintf("the racing load read v2, not v%d", racer)},
		{dropped == 1 && next == 3, fmt.Sprintf("a fill older than the v3 write is not stored: 1 dropped fill and next read v3, not %d and v%d", dropped, next)},
	}
}

// staleReads is what one pass over the cache's keys saw.
type staleReads struct{ hits, bypass uint64 }

// cacheStalenessClaims is what the staleness line states for n entries: a
// stream inside the bound serves every read from the cache, a stream silent
// past it bypasses (and reloads) every read, and a checkpoint serves them
// from the cache again.
func cacheStalenessClaims(n int, fresh, silent staleReads, reloads int64, checked staleReads) []claim {
	all, none := staleReads{hits: uint64(n)}, staleReads{bypass: uint64(n)}
	return []claim{
		{fresh == all, fmt.Sprintf("stream inside the bound -> %d hits, 0 bypasses, not %d, %d", n, fresh.hits, fresh.bypass)},
		{silent == none && reloads == int64(n), fmt.Sprintf("stream silent past the bound -> 0 hits, %d bypasses and reloads, not %d, %d, %d",
			n, silent.hits, silent.bypass, reloads)},
		{checked == all, fmt.Sprintf("checkpoint -> %d hits, 0 bypasses, not %d, %d", n, checked.hits, checked.bypass)},
	}
}

// manualClock is a clock the tour moves by hand.
type manualClock struct{ now time.Time }

func (m *manualClock) Now() time.Time { return m.now }

// cacheStaleness silences the stream past the bound and counts bypasses.
func cacheStaleness(w io.Writer) error {
	clock := &manualClock{now: time.Unix(0, 0)}
	const bound, entries = 2 * time.Second, 50
	c, err := cache.New[int, int](cache.Config[int]{Capacity: 100, MaxStaleness: bound, Clock: clock})
	if err != nil {
		return err
	}
	// Entries refilled from the stream are vouched for by checkpoints only.
	for k := range entries {
		c.Set(k, 0)
		c.Apply(cache.Event[int, int]{Kind: cache.Write, Key: k, Version: 1, Value: 1, Refill: true})
	}
	c.Apply(cache.Event[int, int]{Kind: cache.Checkpoint, Version: 1})
	var loads atomic.Int64
	load := func(context.Context) (int, error) { loads.Add(1); return 1, nil }
	readAll := func() staleReads {
		s0 := c.Stats()
		for k := range entries {
			_, _ = c.Get(context.Background(), k, load)
		}
		s1 := c.Stats()
		return staleReads{s1.Hits - s0.Hits, s1.StaleBypass - s0.StaleBypass}
	}
	clock.now = clock.now.Add(time.Second)
	r1 := readAll()
	clock.now = clock.now.Add(2 * time.Second) // silent for 3 s > the 2 s bound
	r2 := readAll()
	loadsSilent := loads.Load()
	clock.now = clock.now.Add(time.Second)
	c.Apply(cache.Event[int, int]{Kind: cache.Checkpoint, Version: 2})
	r3 := readAll()
	if err := verify(cacheStalenessClaims(entries, r1, r2, loadsSilent, r3)...); err != nil {
		return err
	}
	fmt.Fprintf(w, "   bound %v: stream 1 s old -> %d hits, %d bypasses; silent 3 s -> %d hits, %d bypasses (%d reloads); checkpoint -> %d hits, %d bypasses\n",
		bound, r1.hits, r1.bypass, r2.hits, r2.bypass, loadsSilent, r3.hits, r3.bypass)
	return nil
}
