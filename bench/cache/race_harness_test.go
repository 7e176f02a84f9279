package cache_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	lru "github.com/hashicorp/golang-lru/v2"
	"github.com/maypok86/otter/v2"
	"github.com/stretchr/testify/require"
	"golang.org/x/sync/singleflight"

	"github.com/tierkit/tierkit/cache"
)

// The stale-set harness: one CDC producer goroutine commits new versions of keys
// to a simulated store and delivers the change events to the cache (sometimes
// late, sometimes not at all for a while: a silent stream), while reader
// goroutines read through the cache with a loader that reads the store. The
// value of a key is its version, so each read can be checked:
//
//   - stale set: a read returned version v although an event for a newer version
//     had been applied (Apply/Invalidate returned) before the read started. Only
//     a fill that started before the invalidation and stored its result after it
//     can produce that. Distinct (key, version) pairs are the stale sets.
//   - staleness: when the returned version had been superseded in the store
//     before the read started, the read's staleness is the time from that
//     supersession to the read's start, on the harness's fake clock (the cache's
//     clock where it takes one).
//   - hits and loads: the harness counts the calls of the loader it passes to
//     Get (loads, i.e. backend reads) and the reads whose own loader ran; the
//     other reads are hits, served without a load of their own. That is the
//     same for every implementation, whatever its own counters call a hit. A
//     read that waited for another read's load of its key (a coalesced read)
//     counts as a hit: the harness cannot tell it from one served from memory
//     without asking the implementation.
//
// The fake clock advances by tick per producer step; the stream checkpoints
// every few steps, except in silent phases longer than the bound.

const (
	harnessKeys     = 256
	harnessCapacity = 128
	harnessTick     = 10 * time.Microsecond
	harnessBound    = time.Millisecond // 100 ticks
	checkpointEvery = 20               // steps: 200µs, well inside the bound
	silentEvery     = 4000             // steps between silent phases
	silentSteps     = 400              // 4 ms of silence: 4x the bound
	maxDeliveryLag  = 8                // steps an event may wait before delivery
	harnessReaders  = 4
	writeShare      = 10 // one producer step per writeShare reads, roughly
)

// harnessClock is the shared fake clock.
type harnessClock struct{ ns atomic.Int64 }

func (c *harnessClock) Now() time.Time { return time.Unix(0, c.ns.Load()) }

// harnessTarget is a read-through cache fed by a change stream.
type harnessTarget interface {
	Get(ctx context.Context, key uint64, load func(context.Context) (uint64, error)) (uint64, error)
	Invalidate(key, version uint64)
	Checkpoint(watermark uint64)
}

type tierkitTarget struct{ c *cache.Cache[uint64, uint64] }

func newTierkitTarget(clock cache.Clock) harnessTarget {
	c, err := cache.New[uint64, uint64](cache.Config[uint64]{
		Capacity: harnessCapacity, MaxStaleness: harnessBound, Clock: clock,
	})
	if err != nil {
		panic(err)
	}
	return tierkitTarget{c}
}

func (t tierkitTarget) Get(ctx context.Context, k uint64, load func(context.Context) (uint64, error)) (uint64, error) {
	return t.c.Get(ctx, k, load)
}
func (t tierkitTarget) Invalidate(k, v uint64) {
	t.c.Apply(cache.Event[uint64, uint64]{Kind: cache.Write, Key: k, Version: v})
}
func (t tierkitTarget) Checkpoint(w uint64) {
	t.c.Apply(cache.Event[uint64, uint64]{Kind: cache.Checkpoint, Version: w})
}

// otterTarget uses otter's own loading Get (with its built-in de-duplication)
// and Invalidate, as the issue asks. As newOtterTarget makes it, otter has no
// staleness bound to honour; newOtterBoundedTarget gives it one.
type otterTarget struct{ c *otter.Cache[uint64, uint64] }

func newOtterTarget(cache.Clock) harnessTarget {
	return otterTarget{otter.Must(&otter.Options[uint64, uint64]{MaximumSize: harnessCapacity})}
}

func (o otterTarget) Get(ctx context.Context, k uint64, load func(context.Context) (uint64, error)) (uint64, error) {
	return o.c.Get(ctx, k, otter.LoaderFunc[uint64, uint64](func(ctx context.Context, _ uint64) (uint64, error) {
		return load(ctx)
	}))
}
func (o otterTarget) Invalidate(k, _ uint64) { o.c.Invalidate(k) }
func (o otterTarget) Checkpoint(uint64)      {}

// newOtterBoundedTarget is otter with the bound it documents for stale
// entries: an ExpiryCalculator, ExpiryWriting(harnessBound), on the
// harness's clock (Options.Clock), so that an entry whose invalidation is
// late or lost (the silent phases) is dropped a bound after it was written.
// Without it otter keeps such an entry until the next event for its key.
func newOtterBoundedTarget(clock cache.Clock) harnessTarget {
	return otterTarget{otter.Must(&otter.Options[uint64, uint64]{
		MaximumSize:      harnessCapacity,
		ExpiryCalculator: otter.ExpiryWriting[uint64, uint64](harnessBound),
		Clock:            otterClock{clock},
	})}
}

// otterClock is the harness's clock as otter's Clock, without ticks: otter
// then removes expired entries when it meets them, not periodically.
type otterClock struct{ c cache.Clock }

func (o otterClock) NowNano() int64                    { return o.c.Now().UnixNano() }
func (otterClock) Tick(time.Duration) <-chan time.Time { return nil }

// lruTarget is the common hand-made read-through cache: golang-lru plus
// x/sync/singleflight, store after load, Remove on invalidation. It does not
// call the group's Forget on invalidation: that would only keep later reads
// from joining a load that started before it; that load would still Add its
// value after the Remove, and later reads would hit it.
type lruTarget struct {
	c  *lru.Cache[uint64, uint64]
	sf *singleflight.Group
}

func newLRUTarget(cache.Clock) harnessTarget {
	c, err := lru.New[uint64, uint64](harnessCapacity)
	if err != nil {
		panic(err)
	}
	return lruTarget{c, &singleflight.Group{}}
}

func (l lruTarget) Get(ctx context.Context, k uint64, load func(context.Context) (uint64, error)) (uint64, error) {
	if v, ok := l.c.Get(k); ok {
		return v, nil
	}
	v, err, _ := l.sf.Do(strconv.FormatUint(k, 10), func() (any, error) {
		v, err := load(ctx)
		if err == nil {
			l.c.Add(k, v)
		}
		return v, err
	})
	if err != nil {
		return 0, err
	}
	return v.(uint64), nil
}
func (l lruTarget) Invalidate(k, _ uint64) { l.c.Remove(k) }
func (l lruTarget) Checkpoint(uint64)      {}

// harnessStore is the simulated source of truth.
type harnessStore struct {
	version [harnessKeys]atomic.Uint64 // current committed version (starts at 1)
	applied [harnessKeys]atomic.Uint64 // newest version whose event the cache has applied
	mu      [harnessKeys]sync.Mutex
	commits [harnessKeys][]int64 // commits[k][v-1]: clock time version v was committed
}

// supersededAt returns when version v of k stopped being current.
func (s *harnessStore) supersededAt(k, v uint64) int64 {
	s.mu[k].Lock()
	defer s.mu[k].Unlock()
	return s.commits[k][v] // version v+1's commit time
}

type harnessResult struct {
	ops          int64
	reads        int64
	staleReads   int64 // reads returning a version older than an applied event
	staleSets    int   // distinct (key, version) pairs among those
	maxStaleness time.Duration
	overBound    int64 // reads staler than the bound
	loads        int64 // calls of the harness's loader: backend reads
	loadedReads  int64 // reads whose own loader ran
}

// hits is the reads served without a load of their own.
func (r harnessResult) hits() int64 { return r.reads - r.loadedReads }

func (r harnessResult) String() string {
	return fmt.Sprintf("ops %d, stale sets %d (stale reads %d), worst staleness %v, reads over the %v bound %d; "+
		"reads %d, hits %d, loads %d",
		r.ops, r.staleSets, r.staleReads, r.maxStaleness, harnessBound, r.overBound,
		r.reads, r.hits(), r.loads)
}

// harness is one run: the target, the store, the clock and the pacing.
type harness struct {
	t           testing.TB
	target      harnessTarget
	store       *harnessStore
	clock       *harnessClock
	ops         int64
	seed        uint64
	readsEach   int64
	readersDone atomic.Int64
	readsSoFar  atomic.Int64 // paces the producer: one commit per writeShare reads
}

// runHarness drives target for about ops operations (reads plus commits).
func runHarness(t testing.TB, newTarget func(cache.Clock) harnessTarget, ops int64, seed uint64) harnessResult {
	h := &harness{t: t, clock: &harnessClock{}, store: &harnessStore{}, ops: ops, seed: seed}
	h.target = newTarget(h.clock)
	for k := range h.store.version {
		h.store.version[k].Store(1)
		h.store.applied[k].Store(1)
		h.store.commits[k] = []int64{0}
	}
	h.readsEach = ops * writeShare / (writeShare + 1) / harnessReaders

	var wg sync.WaitGroup
	results := make([]harnessResult, harnessReaders)
	stales := make([]map[[2]uint64]bool, harnessReaders)
	for i := range harnessReaders {
		wg.Go(func() { results[i], stales[i] = h.read(i) })
	}
	start := time.Now()
	var producerSteps int64
	wg.Go(func() { producerSteps = h.produce() })
	wg.Wait()
	var total harnessResult
	all := map[[2]uint64]bool{}
	for i, r := range results {
		total.reads += r.reads
		total.staleReads += r.staleReads
		total.overBound += r.overBound
		total.loads += r.loads
		total.loadedReads += r.loadedReads
		total.maxStaleness = max(total.maxStaleness, r.maxStaleness)
		for p := range stales[i] {
			all[p] = true
		}
	}
	total.staleSets = len(all)
	total.ops = total.reads + producerSteps
	t.Logf("%d reads + %d commits in %v", total.reads, producerSteps, time.Since(start).Round(time.Millisecond))
	return total
}

// produce is the change stream: it commits, delivers late or not at all (silent
// phases), and checkpoints, until the readers are done. It returns its steps.
func (h *harness) produce() int64 {
	r := rand.New(rand.NewPCG(h.seed, 1))
	type event struct{ k, v, due uint64 }
	var pending []event
	deliver := func(e event) {
		h.target.Invalidate(e.k, e.v)
		h.store.applied[e.k].Store(e.v)
	}
	step := uint64(0)
	// ops bounds the loop; the readers finish far earlier.
	for ; h.readersDone.Load() < harnessReaders && int64(step) < h.ops; step++ {
		for h.readsSoFar.Load() < int64(step)*writeShare && h.readersDone.Load() < harnessReaders {
			runtime.Gosched()
		}
		h.clock.ns.Add(int64(harnessTick))
		k := r.Uint64N(harnessKeys)
		h.store.mu[k].Lock()
		v := h.store.version[k].Load() + 1
		h.store.commits[k] = append(h.store.commits[k], h.clock.ns.Load())
		h.store.version[k].Store(v)
		h.store.mu[k].Unlock()
		pending = append(pending, event{k, v, step + r.Uint64N(maxDeliveryLag+1)})
		if step%silentEvery >= silentEvery-silentSteps {
			continue // silent: commits go on, nothing is delivered
		}
		// Deliver the due events in commit order (a stream is ordered).
		n := 0
		for n < len(pending) && pending[n].due <= step {
			deliver(pending[n])
			n++
		}
		pending = pending[n:]
		if step%checkpointEvery == 0 {
			for _, e := range pending {
				deliver(e)
			}
			pending = pending[:0]
			h.target.Checkpoint(step)
		}
	}
	return int64(step)
}

// read is one reader: Zipf keys through the cache, each read checked for a
// stale set and for its staleness.
func (h *harness) read(id int) (res harnessResult, stale map[[2]uint64]bool) {
	defer h.readersDone.Add(1)
	stale = map[[2]uint64]bool{}
	r := rand.New(rand.NewPCG(h.seed, uint64(id)+2))
	z := rand.NewZipf(r, 1.1, 1, harnessKeys-1)
	ctx := context.Background()
	for range h.readsEach {
		k := z.Uint64()
		t0 := h.clock.ns.Load()
		applied := h.store.applied[k].Load()
		current := h.store.version[k].Load()
		var loads atomic.Int64 // atomic: an implementation may load on another goroutine
		v, err := h.target.Get(ctx, k, func(context.Context) (uint64, error) {
			loads.Add(1)
			v := h.store.version[k].Load()
			if r.Uint32()&7 == 0 {
				// Widen the load window: after the read, so that a commit
				// and its event can land between the read and the store.
				runtime.Gosched()
			}
			return v, nil
		})
		if err != nil {
			h.t.Errorf("Get(%d): %v", k, err)
			return res, stale
		}
		res.reads++
		if n := loads.Load(); n > 0 {
			res.loads += n
			res.loadedReads++
		}
		if res.reads%8 == 0 {
			h.readsSoFar.Add(8)
		}
		if v < applied {
			res.staleReads++
			stale[[2]uint64{k, v}] = true
		}
		if v < current {
			if age := time.Duration(t0 - h.store.supersededAt(k, v)); age > 0 {
				res.maxStaleness = max(res.maxStaleness, age)
				if age > harnessBound {
					res.overBound++
				}
			}
		}
	}
	return res, stale
}

// harnessOps is 10^7 with TIERKIT_LONG=1, else a CI-sized run.
func harnessOps() int64 {
	if os.Getenv("TIERKIT_LONG") == "1" {
		return 10_000_000
	}
	if raceEnabled {
		return 200_000
	}
	return 1_000_000
}

// TestStaleSets runs the harness against tierkit (which must show zero stale
// sets and no read over the bound) and against otter (without and with an
// expiry of the bound) and golang-lru with singleflight, whose counts are
// reported, not asserted.
//
//	TIERKIT_LONG=1 go test -run TestStaleSets -v ./cache/   # 10^7 operations each
func TestStaleSets(t *testing.T) {
	ops := harnessOps()
	t.Run("tierkit", func(t *testing.T) {
		res := runHarness(t, newTierkitTarget, ops, 1)
		t.Logf("tierkit: %v", res)
		if res.staleSets != 0 || res.staleReads != 0 {
			t.Errorf("tierkit: %d stale sets, want 0", res.staleSets)
		}
		if res.maxStaleness > harnessBound {
			t.Errorf("tierkit: worst staleness %v over the bound %v", res.maxStaleness, harnessBound)
		}
		if res.reads < ops/2 {
			t.Errorf("only %d reads of %d ops", res.reads, ops)
		}
	})
	for _, p := range []struct {
		name string
		new  func(cache.Clock) harnessTarget
	}{
		{"otter", newOtterTarget},
		{"otter+expiry", newOtterBoundedTarget},
		{"golang-lru+singleflight", newLRUTarget},
	} {
		t.Run(p.name, func(t *testing.T) {
			res := runHarness(t, p.new, ops, 1)
			t.Logf("%s: %v", p.name, res)
		})
	}
}

// TestStaleSetsHarnessSeesLateStores: the harness catches a cache that
// stores a fill overtaken by an invalidation. With one P the only switches
// between goroutines are the harness's own yields, so a commit and its event
// can land inside a fill only if the loader yields between reading the store
// and returning; golang-lru with singleflight then stores the value it read
// after the Remove, and the harness must count stale sets.
func TestStaleSetsHarnessSeesLateStores(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	res := runHarness(t, newLRUTarget, 100_000, 4)
	t.Logf("golang-lru+singleflight, one P: %v", res)
	require.Positive(t, res.staleSets, "stale sets of a cache that stores overtaken fills")
}

// TestStaleSetsOtterBounded: otter configured as its docs say for a staleness
// bound (ExpiryWriting on the harness's clock) makes, like otter without it,
// no stale set, and serves reads within the bound while its loads are fast on
// the harness's clock, so the harness's otter row without expiry shows
// otter's defaults, not a limit of the library; a load slower than the bound
// passes it (TestOtterExpiryCountsFromWrite). Since the loader yields after
// reading the store, some loads are slow on the clock: the committed 10^7
// run of this harness (stale_fixed45_1e7.txt) has 113 reads over the bound,
// worst 3.06 ms; the one before that change (stale_otter_expiry_1e7.txt)
// had none.
func TestStaleSetsOtterBounded(t *testing.T) {
	res := runHarness(t, newOtterBoundedTarget, harnessOps()/4, 2)
	t.Logf("otter+expiry: %v", res)
	require.Zero(t, res.staleSets, "stale sets")
	// Reads over the bound are logged, not asserted: otter counts an entry's
	// age from its store, not from its load's read (TestOtterExpiryCountsFromWrite),
	// so a reader descheduled mid-load while the stream's clock moves on can
	// store a value already near the bound (113 reads in the committed 10^7
	// run, above). This is a peer's behaviour, not a check of tierkit's, and
	// must not make CI flaky.
	t.Logf("otter+expiry: %d reads over the bound, worst staleness %v", res.overBound, res.maxStaleness)
}

// TestStaleSetsCountsHits: the harness's own counts of loads and hits, taken
// at the loader it passes, agree with tierkit's Stats, which counts the same
// things inside the cache: a load per loader call, and a read served without
// its own load either from memory (Hits) or by another read's load
// (Coalesced; no read here leaves a load, its context never ends).
func TestStaleSetsCountsHits(t *testing.T) {
	var c *cache.Cache[uint64, uint64]
	res := runHarness(t, func(clock cache.Clock) harnessTarget {
		target := newTierkitTarget(clock)
		c = target.(tierkitTarget).c
		return target
	}, 20_000, 3)
	st := c.Stats()
	t.Logf("tierkit: %v; Stats: hits %d, coalesced %d, loads %d", res, st.Hits, st.Coalesced, st.Loads)
	require.Positive(t, res.loads)
	require.Positive(t, res.hits())
	require.Equal(t, st.Loads, uint64(res.loads), "loads")
	require.Equal(t, st.Loads, uint64(res.loadedReads), "reads that loaded")
	require.Equal(t, st.Hits+st.Coalesced, uint64(res.hits()), "hits")
}

// TestOtterExpiryCountsFromWrite: otter's ExpiryWriting bounds an entry's age
// from when otter stored it, not from when its load read the store, so a load
// slower than the bound (on the clock) leaves a value that otter serves while
// it is staler than the bound; tierkit counts from the load's start and loads
// again. The harness's loads are fast on its clock, so its runs rarely show
// this: its otter+expiry rows bound the staleness of fast loads only.
func TestOtterExpiryCountsFromWrite(t *testing.T) {
	for _, p := range []struct {
		name      string
		new       func(cache.Clock) harnessTarget
		wantFresh bool
	}{
		{"otter+expiry", newOtterBoundedTarget, false},
		{"tierkit", newTierkitTarget, true},
	} {
		t.Run(p.name, func(t *testing.T) {
			clock := &harnessClock{}
			target := p.new(clock)
			ctx := context.Background()
			version := uint64(1)
			// The load reads version 1 at time 0, then takes 2 bounds, during
			// which version 2 is committed (at 10 µs) with its event lost.
			v, err := target.Get(ctx, 7, func(context.Context) (uint64, error) {
				read := version
				clock.ns.Add(int64(harnessTick))
				version = 2
				clock.ns.Add(int64(2*harnessBound - harnessTick))
				return read, nil
			})
			require.NoError(t, err)
			require.Equal(t, uint64(1), v)
			// Half a bound after the store: version 1 was superseded 2.5
			// bounds ago.
			clock.ns.Add(int64(harnessBound / 2))
			v, err = target.Get(ctx, 7, func(context.Context) (uint64, error) { return version, nil })
			require.NoError(t, err)
			if p.wantFresh {
				require.Equal(t, uint64(2), v, "a value 2.5 bounds stale")
			} else {
				require.Equal(t, uint64(1), v, "otter serves the value 2.5 bounds stale")
			}
		})
	}
}
