package cache_test

import (
	"context"
	"errors"
	"math/rand/v2"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/cache"
)

// statsTally counts, on the callers' side, what a stressed cache's Stats are
// checked against.
type statsTally struct {
	gets       atomic.Uint64 // Get and GetValid calls
	reads      atomic.Uint64 // every read: a Get, or a key of TryGet, LookupManyValid or GetMany
	lookupHits atomic.Uint64 // keys of TryGet, LookupManyValid and GetMany served from memory

	singleLoads, bulkLoads, loadErrors atomic.Uint64 // loader calls, and those that failed
	bulkKeys                           atomic.Uint64 // keys the bulk loaders were given

	deleted      atomic.Uint64 // Delete calls that reported removing an entry
	invalidating atomic.Uint64 // Write and Delete events, Sets of keys not owned, rejections of valid
	ownedSets    atomic.Uint64 // Sets of owned keys
	refills      atomic.Uint64 // Write events with Refill
	checkpoints  atomic.Uint64 // Checkpoint events (watermarks rising)
}

const stressKeys = 48

func stressOwns(k int) bool { return k%8 != 7 }

var errStressLoad = errors.New("test: load failed")

// load is a Get's loader: it yields (so that concurrent Gets of the key join
// it) and fails one time in seven.
func (ta *statsTally) load(ctx context.Context) (uint64, error) {
	n := ta.singleLoads.Add(1)
	runtime.Gosched()
	if n%7 == 0 {
		ta.loadErrors.Add(1)
		return 0, errStressLoad
	}
	return n, nil
}

// loadMany is a bulk loader; it fails one time in seven.
func (ta *statsTally) loadMany(_ context.Context, ks []int) ([]uint64, error) {
	n := ta.bulkLoads.Add(1)
	ta.bulkKeys.Add(uint64(len(ks)))
	if n%7 == 0 {
		ta.loadErrors.Add(1)
		return nil, errStressLoad
	}
	out := make([]uint64, len(ks))
	for i := range out {
		out[i] = n
	}
	return out, nil
}

// valid rejects one value in three, counting the rejections.
func (ta *statsTally) valid(v uint64) bool {
	if v%3 == 0 {
		ta.invalidating.Add(1)
		return false
	}
	return true
}

// read does one random operation of a reader on c.
func (ta *statsTally) read(c *cache.Cache[int, uint64], r *rand.Rand) {
	ctx := context.Background()
	k := r.IntN(stressKeys)
	switch r.IntN(10) {
	case 0, 1, 2, 3:
		ta.gets.Add(1)
		ta.reads.Add(1)
		_, _ = c.Get(ctx, k, ta.load)
	case 4:
		ta.gets.Add(1)
		ta.reads.Add(1)
		_, _ = c.GetValid(ctx, k, ta.valid, ta.load)
	case 5:
		c.Contains(k) // counts nothing
		ta.reads.Add(1)
		if _, ok := c.TryGet(k); ok {
			ta.lookupHits.Add(1)
		}
	case 6:
		keys := []int{k, r.IntN(stressKeys), r.IntN(stressKeys)}
		ta.reads.Add(3)
		missed := c.LookupManyValid(keys, make([]uint64, 3), nil, ta.valid)
		ta.lookupHits.Add(uint64(3 - len(missed)))
		if len(missed) > 0 {
			mk := make([]int, len(missed))
			for j, i := range missed {
				mk[j] = keys[i]
			}
			_, _ = c.FillMany(ctx, mk, ta.loadMany)
		}
	case 7:
		ta.reads.Add(3)
		missed := 0
		_, _ = c.GetMany(ctx, []int{k, r.IntN(stressKeys), r.IntN(stressKeys)}, func(ctx context.Context, ks []int) ([]uint64, error) {
			missed = len(ks) // load gets the keys not served from memory
			return ta.loadMany(ctx, ks)
		})
		ta.lookupHits.Add(uint64(3 - missed))
	case 8:
		if stressOwns(k) {
			ta.ownedSets.Add(1)
		} else {
			ta.invalidating.Add(1) // invalidated as by Delete
		}
		c.Set(k, r.Uint64())
	default:
		if c.Delete(k) {
			ta.deleted.Add(1)
		}
	}
}

// stream applies change events, checkpoints and SetConfigs to c until stop,
// advancing clock.
func (ta *statsTally) stream(t *testing.T, c *cache.Cache[int, uint64], clock *fakeClock, stop *atomic.Bool) {
	r := rand.New(rand.NewPCG(7, 8))
	for i := uint64(1); !stop.Load(); i++ {
		clock.Advance(20 * time.Microsecond)
		ev := cache.Event[int, uint64]{Kind: cache.Write, Key: r.IntN(stressKeys), Version: i, Value: i}
		switch r.IntN(4) {
		case 0:
			ev.Kind = cache.Delete
			ta.invalidating.Add(1)
		case 1:
			ev.Refill = true
			ta.refills.Add(1)
		default:
			ta.invalidating.Add(1)
		}
		c.Apply(ev)
		if i%64 == 0 {
			c.Apply(cache.Event[int, uint64]{Kind: cache.Checkpoint, Version: i})
			ta.checkpoints.Add(1)
		}
		if i%500 == 0 {
			cfg := stressConfig(8 + r.IntN(17))
			if !assert.NoError(t, c.SetConfig(cfg)) {
				return
			}
		}
		runtime.Gosched() // a stream paced by the readers, not a spinning one
	}
}

func stressConfig(capacity int) cache.Config[int] {
	return cache.Config[int]{Capacity: capacity, MaxStaleness: time.Millisecond, Owns: stressOwns}
}

// observe takes snapshots until stop and checks that every counter only
// grows ("monotonic since New"), whatever runs meanwhile.
func observe(t *testing.T, c *cache.Cache[int, uint64], stop *atomic.Bool) {
	counters := func(s cache.Stats) []uint64 {
		return []uint64{s.Hits, s.Misses, s.Loads, s.LoadErrors, s.Coalesced, s.Invalidations, s.Refills,
			s.DroppedFills, s.StaleBypass, s.NotOwned, s.Evictions, s.Checkpoints, s.Watermark}
	}
	prev := counters(c.Stats())
	for !stop.Load() {
		now := counters(c.Stats())
		for i := range now {
			if now[i] < prev[i] {
				t.Errorf("counter %d of Stats went from %d down to %d", i, prev[i], now[i])
				return
			}
		}
		prev = now
		runtime.Gosched()
	}
}

// herd makes n Gets of one key share one load (in a synctest bubble), then
// reads the key once within the staleness bound and once beyond it.
func (ta *statsTally) herd(t *testing.T, c *cache.Cache[int, uint64], clock *fakeClock, n int) {
	release := make(chan struct{})
	var wg sync.WaitGroup
	for range n {
		ta.gets.Add(1)
		ta.reads.Add(1)
		wg.Go(func() {
			_, err := c.Get(context.Background(), 1000, func(context.Context) (uint64, error) {
				ta.singleLoads.Add(1)
				<-release
				return 1, nil
			})
			assert.NoError(t, err)
		})
		synctest.Wait() // leads the load, or has joined it
	}
	close(release)
	wg.Wait()
	// beyond the staleness bound: a stale bypass, a miss and a load
	ta.gets.Add(2)
	ta.reads.Add(2)
	_, err := c.Get(context.Background(), 1000, ta.load) // a hit
	assert.NoError(t, err)
	clock.Advance(2 * time.Millisecond)
	_, err = c.Get(context.Background(), 1000, ta.load)
	assert.NoError(t, err)
}

// TestStatsIdentitiesUnderConcurrency races every read path (Get, GetValid,
// TryGet, Contains, LookupManyValid with FillMany, GetMany), Set, Delete, a
// change stream with checkpoints and SetConfig, on a small cache with a
// staleness bound and keys it does not own, and checks the relations Stats
// documents. While it runs, every counter only grows. Once it stops: every
// read is exactly one hit, miss or read not owned; Loads is the loader calls
// and LoadErrors the failed ones; every Get is exactly one hit, one load or
// one Coalesced (no caller leaves early); Checkpoints is the checkpoints
// applied; and the counters bounded by what was done stay within it.
// TestStatsIdentities checks the exact values on each path one at a time;
// TestStressQuiescentAgreement races the writers without a staleness bound,
// TryGet or failing loads, and checks only the first of these relations.
func TestStatsIdentitiesUnderConcurrency(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const readers, ops = 4, 4000
		clock := &fakeClock{}
		cfg := stressConfig(16)
		cfg.Clock = clock
		c := newCache[int, uint64](t, cfg)
		ta := &statsTally{}
		ta.herd(t, c, clock, 4)

		var stop atomic.Bool
		var bg sync.WaitGroup
		bg.Go(func() { ta.stream(t, c, clock, &stop) })
		bg.Go(func() { observe(t, c, &stop) })
		var wg sync.WaitGroup
		for id := range readers {
			wg.Go(func() {
				r := rand.New(rand.NewPCG(uint64(id), 9))
				for range ops {
					ta.read(c, r)
				}
			})
		}
		wg.Wait()
		stop.Store(true)
		bg.Wait()
		checkStressedStats(t, c.Stats(), ta)
	})
}

func checkStressedStats(t *testing.T, s cache.Stats, ta *statsTally) {
	t.Helper()
	t.Logf("stats: %+v", s)
	single, bulk := ta.singleLoads.Load(), ta.bulkLoads.Load()
	assert.Equal(t, ta.reads.Load(), s.Hits+s.Misses+s.NotOwned, "every read is one hit, miss or read not owned")
	assert.Equal(t, single+bulk, s.Loads, "Loads counts the loader calls")
	assert.Equal(t, ta.loadErrors.Load(), s.LoadErrors, "LoadErrors counts the loads that failed")
	require.GreaterOrEqual(t, s.Hits, ta.lookupHits.Load())
	assert.Equal(t, ta.gets.Load(), s.Hits-ta.lookupHits.Load()+single+s.Coalesced,
		"every Get is one hit, one load or one Coalesced")
	assert.Equal(t, ta.checkpoints.Load(), s.Checkpoints)
	assert.LessOrEqual(t, s.StaleBypass, s.Misses+single+s.Coalesced,
		"a stale bypass is a miss's, or a Get's that joined a load and loaded again")
	assert.LessOrEqual(t, s.Refills, ta.refills.Load())
	assert.GreaterOrEqual(t, s.Invalidations, ta.deleted.Load(), "every entry Delete removed")
	assert.LessOrEqual(t, s.Invalidations, ta.deleted.Load()+ta.invalidating.Load())
	assert.LessOrEqual(t, s.DroppedFills, single+ta.bulkKeys.Load(), "one per key position loaded at most")
	assert.LessOrEqual(t, s.Evictions+s.Invalidations+uint64(s.Len), ta.ownedSets.Load()+single+ta.bulkKeys.Load(),
		"an entry removed counts once, and was stored by a Set or a load")
	assert.LessOrEqual(t, s.Len, s.Capacity)
	// the run reached every counter checked
	for name, v := range map[string]uint64{"Hits": s.Hits, "Misses": s.Misses, "NotOwned": s.NotOwned,
		"Coalesced": s.Coalesced, "LoadErrors": s.LoadErrors, "Invalidations": s.Invalidations,
		"Evictions": s.Evictions, "StaleBypass": s.StaleBypass, "Refills": s.Refills} {
		assert.Positive(t, v, name)
	}
}
