package shed_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/tierkit/tierkit/shed"
)

// tenantNames returns n distinct tenant names.
func tenantNames(n int) []string {
	names := make([]string, n)
	for i := range names {
		names[i] = fmt.Sprintf("tenant-%06d", i)
	}
	return names
}

// BenchmarkFastPath measures Acquire+release with free capacity and nothing
// queued, with every tenant's state created first. The target: <= 100
// ns, 0 allocs, flat from 1,350 to 100,000 tenants. Three access patterns:
// pattern=hot sends from 16 tenants among the n kept (the algorithm's cost, since
// a skewed real mix keeps its hot tenants in cache), pattern=cycle visits every
// tenant in turn in the order they were created, and pattern=shuffle visits
// every tenant in a random order (the same each run), the worst case for the
// CPU caches, since no prefetcher can guess the next tenant; the naive baseline
// below pays the same patterns.
func BenchmarkFastPath(b *testing.B) {
	for _, pattern := range []string{"hot", "cycle", "shuffle"} {
		for _, n := range []int{1350, 10_000, 100_000} {
			names := tenantNames(n)
			b.Run(fmt.Sprintf("pattern=%s/tenants=%d", pattern, n), func(b *testing.B) {
				s, err := shed.New(shed.Config{Capacity: shed.Fixed(1 << 30)})
				if err != nil {
					b.Fatal(err)
				}
				ctx := context.Background()
				for _, t := range names { // create every tenant's state first
					r, _ := s.Acquire(ctx, t, 0, 1)
					r()
				}
				seq := order(pattern, names)
				b.ReportAllocs()
				stop := cpuNs(b)
				i := 0
				for b.Loop() {
					r, err := s.Acquire(ctx, seq[i], i&1, 1)
					if err != nil {
						b.Fatal(err)
					}
					r()
					if i++; i == len(seq) {
						i = 0
					}
				}
				stop()
				b.ReportMetric(float64(s.Stats().Tenants), "tenants")
			})
		}
	}
}

// order returns the tenant sequence of a pattern.
func order(pattern string, names []string) []string {
	switch pattern {
	case "cycle":
		return names
	case "shuffle":
		seq := slices.Clone(names)
		rand.New(rand.NewPCG(1, 2)).Shuffle(len(seq), func(i, j int) { seq[i], seq[j] = seq[j], seq[i] })
		return seq
	}
	seq := make([]string, 16)
	for i := range seq {
		seq[i] = names[i*len(names)/len(seq)]
	}
	return seq
}

// BenchmarkNaiveBaseline is the least a shared admission counter can cost: a
// mutex, a map of per-tenant counters and an in-flight sum, no queueing, on the
// same tenant counts and patterns as BenchmarkFastPath.
func BenchmarkNaiveBaseline(b *testing.B) {
	for _, pattern := range []string{"hot", "cycle", "shuffle"} {
		for _, n := range []int{1350, 10_000, 100_000} {
			names := tenantNames(n)
			b.Run(fmt.Sprintf("pattern=%s/tenants=%d", pattern, n), func(b *testing.B) {
				var mu sync.Mutex
				counts := map[string]*[2]int64{}
				for _, t := range names {
					counts[t] = new([2]int64)
				}
				var inflight int64
				seq := order(pattern, names)
				b.ReportAllocs()
				stop := cpuNs(b)
				defer stop()
				i := 0
				for b.Loop() {
					mu.Lock()
					inflight++
					counts[seq[i]][i&1]++
					mu.Unlock()
					mu.Lock()
					inflight--
					mu.Unlock()
					if i++; i == len(seq) {
						i = 0
					}
				}
			})
		}
	}
}

// BenchmarkTryAcquireParallel is the fast path from every P at once.
func BenchmarkTryAcquireParallel(b *testing.B) {
	names := tenantNames(1350)
	s, _ := shed.New(shed.Config{Capacity: shed.Fixed(1 << 30)})
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		i := 0
		for pb.Next() {
			r, err := s.TryAcquire(names[i%len(names)], 0, 1)
			if err != nil {
				b.Fatal(err)
			}
			r()
			i += 7
		}
	})
}

// BenchmarkShedBucketFull measures the slow path under overload: a full bucket sheds
// (the flooding tenant's common case), allocation-free.
func BenchmarkShedBucketFull(b *testing.B) {
	// The waiter must outlive the benchmark: with a short deadline it would leave
	// and each op would queue instead of being shed.
	s, _ := shed.New(shed.Config{Capacity: shed.Fixed(1), MaxQueue: 1, QueueDeadline: time.Hour, StandingDeadline: time.Hour})
	hold, _ := s.TryAcquire("x", 0, 1)
	defer hold()
	done := make(chan struct{})
	go func() { // fill the bucket with one waiter
		_, _ = s.Acquire(context.Background(), "noisy", 0, 1)
		close(done)
	}()
	for s.Stats().Queued == 0 {
		// wait for the waiter to queue (bounded by its deadline)
		select {
		case <-done:
			b.Fatal("waiter left before the benchmark")
		default:
		}
	}
	ctx := context.Background()
	b.ReportAllocs()
	stop := cpuNs(b)
	for b.Loop() {
		if _, err := s.Acquire(ctx, "noisy", 0, 1); err == nil {
			b.Fatal("admitted")
		}
	}
	stop()
	b.StopTimer()
	s.Close()
	<-done
}

// BenchmarkQueuedFreshGoroutine measures a request that waits: a new
// goroutine (a server's per-request goroutine, with the runtime's small
// initial stack) calls Acquire while the capacity is held, queues, and is
// admitted by the holder's release. Its context can end, as a client
// deadline's does, so Acquire waits in a select. The time includes starting
// the goroutine and the hand-offs; what it is for is comparing versions of
// the queued path. Whether the goroutine's stack grows on that path depends
// on the frames below Acquire, so the sub-benchmarks put a handler with 0,
// 128, 256 or 512 bytes of locals there. Since a request queued for want of
// capacity no longer carries the dispatch's buffer (dispatchUnlock), the
// stack no longer grows at frame=128 (it did: runtime.newstack took a third
// of the CPU; 0.57x the time in 5 ABBA blocks); at 256 and 512 it still
// does, a little deeper than before (1.07x and 1.19x the time), at 0 it
// never did (bench/shed/README.md).
func BenchmarkQueuedFreshGoroutine(b *testing.B) {
	for _, h := range []struct {
		name    string
		acquire func(s *shed.Shedder, ctx context.Context) (func(), error)
	}{
		{"frame=0", func(s *shed.Shedder, ctx context.Context) (func(), error) { return s.Acquire(ctx, "b", 0, 1) }},
		{"frame=128", handler[[128]byte]},
		{"frame=256", handler[[256]byte]},
		{"frame=512", handler[[512]byte]},
	} {
		b.Run(h.name, func(b *testing.B) { benchQueuedFresh(b, h.acquire) })
	}
}

// frameSink keeps the handlers' locals alive across their Acquire.
var frameSink byte

// handler stands for a request handler with the bytes of A as locals live
// across its Acquire: the frames that lie below Acquire's on a per-request
// goroutine's stack. (Each array size is a shape of its own, so each gets a
// frame of its size.)
//
//go:noinline
func handler[A [128]byte | [256]byte | [512]byte](s *shed.Shedder, ctx context.Context) (func(), error) {
	var pad A
	pad[frameSink&127] = 1
	r, err := s.Acquire(ctx, "b", 0, 1)
	frameSink += pad[(frameSink+1)&127]
	return r, err
}

func benchQueuedFresh(b *testing.B, acquire func(s *shed.Shedder, ctx context.Context) (func(), error)) {
	s, _ := shed.New(shed.Config{Capacity: shed.Fixed(1), QueueDeadline: time.Hour, StandingDeadline: time.Hour})
	defer s.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	hold, err := s.Acquire(ctx, "a", 0, 1)
	if err != nil {
		b.Fatal(err)
	}
	got := make(chan func(), 1)
	b.ReportAllocs()
	for b.Loop() {
		go func() {
			r, err := acquire(s, ctx)
			if err != nil {
				panic(err)
			}
			got <- r
		}()
		for s.Stats().Queued == 0 { // bounded: the goroutine queues or panics
			runtime.Gosched()
		}
		hold()
		hold = <-got
	}
	hold()
}
