package coalesce_test

import (
	"context"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/tierkit/tierkit/coalesce"
)

// fetch stands for a backend round trip: it gives up the processor a few times, as
// a goroutine waiting on the network does, so that other callers arrive and join
// while it is in flight. (Side-by-side numbers against the peer libraries are in the
// bench module, bench/coalesce.)
func fetch(context.Context) (int, error) {
	for range 4 {
		runtime.Gosched()
	}
	return 1, nil
}

// naiveGroup is the baseline: a mutex, a map and a WaitGroup per call, no context,
// no panic handling (the shape of most hand-written singleflights).
type naiveGroup struct {
	mu sync.Mutex
	m  map[string]*naiveCall
}

type naiveCall struct {
	wg  sync.WaitGroup
	val int
	err error
}

func (g *naiveGroup) Do(key string, fn func(context.Context) (int, error)) (int, error) {
	g.mu.Lock()
	if g.m == nil {
		g.m = make(map[string]*naiveCall)
	}
	if c, ok := g.m[key]; ok {
		g.mu.Unlock()
		c.wg.Wait()
		return c.val, c.err
	}
	c := new(naiveCall)
	c.wg.Add(1)
	g.m[key] = c
	g.mu.Unlock()
	c.val, c.err = fn(context.Background())
	g.mu.Lock()
	delete(g.m, key)
	g.mu.Unlock()
	c.wg.Done()
	return c.val, c.err
}

// BenchmarkHotKey: 64 goroutines per CPU call Do on one key; most calls join an
// execution in flight. calls/exec is how many callers one fetch served.
func BenchmarkHotKey(b *testing.B) {
	b.Run("impl=coalesce", func(b *testing.B) {
		var g coalesce.Group[string, int]
		var execs atomic.Int64
		fn := func(ctx context.Context) (int, error) { execs.Add(1); return fetch(ctx) }
		parallel(b, func() { _, _ = g.Do(context.Background(), "hot", fn) })
		b.ReportMetric(float64(b.N)/float64(execs.Load()), "calls/exec")
	})
	b.Run("impl=coalesce-cancellable-ctx", func(b *testing.B) {
		var g coalesce.Group[string, int]
		var execs atomic.Int64
		fn := func(ctx context.Context) (int, error) { execs.Add(1); return fetch(ctx) }
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		parallel(b, func() { _, _ = g.Do(ctx, "hot", fn) })
		b.ReportMetric(float64(b.N)/float64(execs.Load()), "calls/exec")
	})
	b.Run("impl=naive", func(b *testing.B) {
		var g naiveGroup
		var execs atomic.Int64
		fn := func(ctx context.Context) (int, error) { execs.Add(1); return fetch(ctx) }
		parallel(b, func() { _, _ = g.Do("hot", fn) })
		b.ReportMetric(float64(b.N)/float64(execs.Load()), "calls/exec")
	})
	b.Run("impl=no-coalescing", func(b *testing.B) {
		parallel(b, func() { _, _ = fetch(context.Background()) })
		b.ReportMetric(1, "calls/exec")
	})
}

// BenchmarkDistinctKeys: no contention; every call is an execution of a trivial fn,
// so this is the fixed cost of the group itself.
func BenchmarkDistinctKeys(b *testing.B) {
	var next atomic.Int64
	keys := func() []string {
		base := next.Add(1) * 1024
		ks := make([]string, 1024)
		for i := range ks {
			ks[i] = strconv.FormatInt(base+int64(i), 10)
		}
		return ks
	}
	trivial := func(context.Context) (int, error) { return 1, nil }
	b.Run("impl=coalesce", func(b *testing.B) {
		var g coalesce.Group[string, int]
		b.ReportAllocs()
		b.RunParallel(func(pb *testing.PB) {
			ks := keys()
			for i := 0; pb.Next(); i++ {
				_, _ = g.Do(context.Background(), ks[i%len(ks)], trivial)
			}
		})
	})
	b.Run("impl=naive", func(b *testing.B) {
		var g naiveGroup
		b.ReportAllocs()
		b.RunParallel(func(pb *testing.PB) {
			ks := keys()
			for i := 0; pb.Next(); i++ {
				_, _ = g.Do(ks[i%len(ks)], trivial)
			}
		})
	})
}

func parallel(b *testing.B, op func()) {
	b.ReportAllocs()
	b.SetParallelism(64)
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			op()
		}
	})
}

// BenchmarkDoUncontended is one goroutine calling Do on one key: every call is an
// execution that runs fn inline and recycles its call, the path of a cold key.
func BenchmarkDoUncontended(b *testing.B) {
	trivial := func(context.Context) (int, error) { return 1, nil }
	b.Run("impl=coalesce", func(b *testing.B) {
		var g coalesce.Group[string, int]
		ctx := context.Background()
		b.ReportAllocs()
		for b.Loop() {
			_, _ = g.Do(ctx, "k", trivial)
		}
	})
	b.Run("impl=coalesce-DoWith", func(b *testing.B) {
		var g coalesce.Group[string, int]
		ctx := context.Background()
		b.ReportAllocs()
		for b.Loop() {
			_, _ = coalesce.DoWith(&g, ctx, "k", "k", keyLen)
		}
	})
	b.Run("impl=naive", func(b *testing.B) {
		var g naiveGroup
		b.ReportAllocs()
		for b.Loop() {
			_, _ = g.Do("k", trivial)
		}
	})
}

// keyLen is a static fn for DoWith.
func keyLen(_ context.Context, key string) (int, error) { return len(key), nil }

// BenchmarkDoChanLeave: a DoChan waiter joins a call that the given number of
// other DoChan waiters already wait on, then cancels its context and receives
// its Result. Leaving should not cost in proportion to the waiters that stay.
func BenchmarkDoChanLeave(b *testing.B) {
	for _, waiters := range []int{16, 1 << 10, 1 << 14} {
		b.Run("waiters="+strconv.Itoa(waiters), func(b *testing.B) {
			var g coalesce.Group[string, int]
			release := make(chan struct{})
			fn := func(context.Context) (int, error) { <-release; return 1, nil }
			stay := make([]<-chan coalesce.Result[int], waiters)
			for i := range stay {
				stay[i] = g.DoChan(context.Background(), "k", fn)
			}
			b.ReportAllocs()
			for b.Loop() {
				ctx, cancel := context.WithCancel(context.Background())
				ch := g.DoChan(ctx, "k", fn)
				cancel()
				<-ch
			}
			b.StopTimer()
			close(release)
			for _, ch := range stay {
				<-ch
			}
		})
	}
}
