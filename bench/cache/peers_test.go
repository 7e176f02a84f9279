package cache_test

import (
	"fmt"
	"sync/atomic"

	"github.com/Yiling-J/theine-go"
	"github.com/dgraph-io/ristretto/v2"
	arc "github.com/hashicorp/golang-lru/arc/v2"
	lru "github.com/hashicorp/golang-lru/v2"
	"github.com/maypok86/otter/v2"

	"github.com/tierkit/tierkit/cache"
)

// kv is the common surface of every cache under test: a lookup that never loads
// and a store. Each adapter does the same work with its library's own calls.
type kv interface {
	Get(k uint64) (uint64, bool)
	Set(k, v uint64)
	// Len returns the number of entries held now, or -1 if the library cannot
	// tell cheaply.
	Len() int
}

type impl struct {
	name string
	make func(capacity int) kv
}

// impls lists tierkit first, then the peers pinned in bench/go.mod.
var impls = []impl{
	{"tierkit", newTierkit},
	{"otter", newOtter},
	{"theine", newTheine},
	{"ristretto", newRistretto},
	{"golang-lru", newLRU},
}

type tierkitKV struct{ c *cache.Cache[uint64, uint64] }

func newTierkit(capacity int) kv {
	c, err := cache.New[uint64, uint64](cache.Config[uint64]{Capacity: capacity})
	if err != nil {
		panic(err)
	}
	return tierkitKV{c}
}
func (t tierkitKV) Get(k uint64) (uint64, bool) { return t.c.TryGet(k) }
func (t tierkitKV) Set(k, v uint64)             { t.c.Set(k, v) }
func (t tierkitKV) Len() int                    { return t.c.Len() }

type otterKV struct{ c *otter.Cache[uint64, uint64] }

// newOtter is otter as shipped: its default executor (go fn()), counted in
// otterDrains, so that a benchmark can tell how often otter's maintenance ran.
func newOtter(capacity int) kv {
	return otterKV{otter.Must(&otter.Options[uint64, uint64]{MaximumSize: capacity, Executor: countedGo})}
}

// otterDrains counts the maintenance runs that otter handed to its executor
// (countedGo): each drains its read buffers, at most 16 buffered hits per
// stripe, and its write buffer.
var otterDrains atomic.Int64

// countedGo is otter's default executor (go fn()) with a count.
func countedGo(fn func()) {
	otterDrains.Add(1)
	go fn()
}
func (o otterKV) Get(k uint64) (uint64, bool) { return o.c.GetIfPresent(k) }
func (o otterKV) Set(k, v uint64)             { o.c.Set(k, v) }
func (o otterKV) Len() int                    { return o.c.EstimatedSize() }

type theineKV struct{ c *theine.Cache[uint64, uint64] }

func newTheine(capacity int) kv {
	c, err := theine.NewBuilder[uint64, uint64](int64(capacity)).Build()
	if err != nil {
		panic(err)
	}
	return theineKV{c}
}
func (t theineKV) Get(k uint64) (uint64, bool) { return t.c.Get(k) }
func (t theineKV) Set(k, v uint64)             { t.c.Set(k, v, 1) }
func (t theineKV) Len() int                    { return t.c.Len() }
func (t theineKV) Close()                      { t.c.Close() }

type ristrettoKV struct {
	c *ristretto.Cache[uint64, uint64]
}

func newRistretto(capacity int) kv {
	c, err := ristretto.NewCache(&ristretto.Config[uint64, uint64]{
		NumCounters:        int64(10 * capacity),
		MaxCost:            int64(capacity),
		BufferItems:        64,
		IgnoreInternalCost: true,
	})
	if err != nil {
		panic(err)
	}
	return ristrettoKV{c}
}
func (r ristrettoKV) Get(k uint64) (uint64, bool) { return r.c.Get(k) }
func (r ristrettoKV) Set(k, v uint64)             { r.c.Set(k, v, 1) }

// Len is the cost ristretto's policy has admitted (MaxCost less
// RemainingCost, one lock): with cost 1 per entry and IgnoreInternalCost,
// the entries it holds. Sets still in its buffer are not counted; Get cannot
// find them either.
func (r ristrettoKV) Len() int { return int(r.c.MaxCost() - r.c.RemainingCost()) }
func (r ristrettoKV) Close()   { r.c.Close() }

type lruKV struct{ c *lru.Cache[uint64, uint64] }

func newLRU(capacity int) kv {
	c, err := lru.New[uint64, uint64](capacity)
	if err != nil {
		panic(fmt.Sprint(err))
	}
	return lruKV{c}
}
func (l lruKV) Get(k uint64) (uint64, bool) { return l.c.Get(k) }
func (l lruKV) Set(k, v uint64)             { l.c.Add(k, v) }
func (l lruKV) Len() int                    { return l.c.Len() }

// Two classic adaptive policies from golang-lru, for the hit-ratio tables
// only: ARC (Megiddo and Modha's, from whose paper the OLTP trace comes) and
// 2Q. Both keep their bound, so they compare with tierkit at equal room.

// adderKV adapts a cache whose Add returns nothing (ARC and 2Q).
type adderKV[C interface {
	Get(uint64) (uint64, bool)
	Add(uint64, uint64)
	Len() int
}] struct{ c C }

func (a adderKV[C]) Get(k uint64) (uint64, bool) { return a.c.Get(k) }
func (a adderKV[C]) Set(k, v uint64)             { a.c.Add(k, v) }
func (a adderKV[C]) Len() int                    { return a.c.Len() }

func newARC(capacity int) kv {
	c, err := arc.NewARC[uint64, uint64](capacity)
	if err != nil {
		panic(fmt.Sprint(err))
	}
	return adderKV[*arc.ARCCache[uint64, uint64]]{c}
}

func new2Q(capacity int) kv {
	c, err := lru.New2Q[uint64, uint64](capacity)
	if err != nil {
		panic(fmt.Sprint(err))
	}
	return adderKV[*lru.TwoQueueCache[uint64, uint64]]{c}
}

// Strict-bound variants of the two peers whose policy applies writes through
// buffers: in a single-threaded replay they hold more entries than their
// capacity while the buffer waits (otter drains on another goroutine, theine
// on its maintenance goroutine). These variants run each write's maintenance
// before returning, so that like tierkit and golang-lru they never hold more
// than their capacity: the policies are then compared on equal room. This is
// how Caffeine's simulator drives Caffeine (a same-thread executor).

// newOtterStrict runs otter's maintenance on the writer's goroutine (a
// synchronous Executor), so every write is applied to the policy, and evicts,
// before Set returns.
func newOtterStrict(capacity int) kv {
	return otterKV{otter.Must(&otter.Options[uint64, uint64]{
		MaximumSize: capacity,
		Executor:    func(fn func()) { fn() },
	})}
}

// theineStrictKV waits after each Set until theine's write buffer has been
// applied to the policy (Cache.Wait).
type theineStrictKV struct{ theineKV }

func newTheineStrict(capacity int) kv {
	return theineStrictKV{newTheine(capacity).(theineKV)}
}
func (t theineStrictKV) Set(k, v uint64) { t.c.Set(k, v, 1); t.c.Wait() }

// ristrettoStrictKV waits after each Set until ristretto's set buffer has
// been applied (Cache.Wait, which its docs give as the way to make a Set
// visible to the next Get), as theine-strict does for theine. As shipped,
// ristretto applies Sets on its own goroutine, so in a replay a lookup soon
// after a Set misses and stores again; ristretto still never holds more than
// its MaxCost.
type ristrettoStrictKV struct{ ristrettoKV }

func newRistrettoStrict(capacity int) kv {
	return ristrettoStrictKV{newRistretto(capacity).(ristrettoKV)}
}
func (r ristrettoStrictKV) Set(k, v uint64) { r.c.Set(k, v, 1); r.c.Wait() }

// closeKV stops c's background goroutines, if its library starts any (theine
// and ristretto do), so that they cannot run into the next measurement.
func closeKV(c kv) {
	if cl, ok := c.(interface{ Close() }); ok {
		cl.Close()
	}
}
