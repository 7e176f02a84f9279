package batcherbench

import (
	"context"
	"math"
	"runtime"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/graph-gophers/dataloader/v7"
	"github.com/stretchr/testify/require"
	"github.com/vikstrous/dataloadgen"
	"google.golang.org/api/support/bundler"

	"github.com/tierkit/tierkit/batcher"
)

const (
	callers  = 256              // concurrent goroutines, whatever -cpu is
	maxBatch = 128              // MaxItems / batch capacity / count threshold
	linger   = time.Millisecond // linger / wait / delay threshold
	// keySpace is each goroutine's key range, so keys never repeat: 2^54 keys
	// where int has 64 bits, 4 million on 32-bit platforms (1 << 40 overflowed
	// their int). Fewer than 2*callers goroutines run: callers rounded up to a
	// multiple of GOMAXPROCS.
	keySpace = math.MaxInt / (2 * callers)
)

// run is the common harness: 256 goroutines each calling do with unique keys and
// checking the answer; it reports the mean batch fill and the process CPU time per
// item (which, unlike ns/op, does not depend on how busy the machine is). The
// batcher is built before run: its construction is neither timed nor counted.
func run(b *testing.B, batches *atomic.Int64, do func(ctx context.Context, key int) (int, error)) {
	b.ReportAllocs()
	b.ResetTimer()
	b.SetParallelism((callers + runtime.GOMAXPROCS(0) - 1) / runtime.GOMAXPROCS(0))
	var worker, bad atomic.Int64
	cpu0 := cpuTime()
	b.RunParallel(func(pb *testing.PB) {
		ctx := context.Background()
		key := int(worker.Add(1)) * keySpace
		for pb.Next() {
			key++
			if v, err := do(ctx, key); err != nil || v != key+1 {
				bad.Add(1)
			}
		}
	})
	b.StopTimer()
	cpu := cpuTime() - cpu0
	if bad.Load() > 0 {
		b.Fatalf("%d wrong answers", bad.Load())
	}
	b.ReportMetric(100*float64(b.N)/float64(batches.Load()*maxBatch), "fill%")
	b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N), "cpu-ns/op")
}

// cpuTime returns the user+system CPU time of the process so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// impl is one batcher under test: do sends one key and returns its answer;
// batches counts backend calls; stop releases the batcher.
type impl struct {
	name string
	make func() (do func(ctx context.Context, key int) (int, error), batches *atomic.Int64, stop func())
}

var impls = []impl{
	{"tierkit", func() (func(context.Context, int) (int, error), *atomic.Int64, func()) {
		return newTierkit(batcher.FlushOnLinger)
	}},
	// The same with natural batching: a batch goes at once when no flush of its
	// group is in flight (the linger is then only an upper bound).
	{"tierkit-natural", func() (func(context.Context, int) (int, error), *atomic.Int64, func()) {
		return newTierkit(batcher.FlushNatural)
	}},
	{"dataloadgen", func() (func(context.Context, int) (int, error), *atomic.Int64, func()) {
		batches := new(atomic.Int64)
		l := dataloadgen.NewLoader(func(_ context.Context, keys []int) ([]int, []error) {
			batches.Add(1)
			out := make([]int, len(keys))
			for i, k := range keys {
				out[i] = k + 1
			}
			return out, nil
		}, dataloadgen.WithBatchCapacity(maxBatch), dataloadgen.WithWait(linger), dataloadgen.WithoutCache())
		return l.Load, batches, func() {}
	}},
	{"dataloader", func() (func(context.Context, int) (int, error), *atomic.Int64, func()) {
		batches := new(atomic.Int64)
		l := dataloader.NewBatchedLoader(func(_ context.Context, keys []int) []*dataloader.Result[int] {
			batches.Add(1)
			out := make([]*dataloader.Result[int], len(keys))
			for i, k := range keys {
				out[i] = &dataloader.Result[int]{Data: k + 1}
			}
			return out
		},
			dataloader.WithBatchCapacity[int, int](maxBatch),
			dataloader.WithWait[int, int](linger),
			dataloader.WithCache[int, int](&dataloader.NoCache[int, int]{}))
		do := func(ctx context.Context, key int) (int, error) { return l.Load(ctx, key)() }
		return do, batches, func() {}
	}},
	{"bundler", newBundler},
}

// newTierkit drives tierkit's batcher with the given flush policy.
func newTierkit(policy batcher.FlushPolicy) (func(context.Context, int) (int, error), *atomic.Int64, func()) {
	batches := new(atomic.Int64)
	bt, err := batcher.New(batcher.Config[int]{MaxItems: maxBatch, Linger: linger, Policy: policy},
		func(_ context.Context, _ int, reqs []int, out []batcher.Result[int]) error {
			batches.Add(1)
			for i, r := range reqs {
				out[i].Resp = r + 1
			}
			return nil
		})
	if err != nil {
		panic(err)
	}
	do := func(ctx context.Context, key int) (int, error) { return bt.Do(ctx, 0, key) }
	return do, batches, func() { _ = bt.Close() }
}

// newBundler drives api/support/bundler. It returns nothing to the caller, so
// each item carries its own reply channel; each goroutine has one item in flight
// at a time, so items are reused through a sync.Pool, whose per-P caches cost
// about what a goroutine's own item would. A channel shared by all 256 callers
// as the pool would take its lock twice per item, a cost no other library pays.
func newBundler() (func(context.Context, int) (int, error), *atomic.Int64, func()) {
	type item struct {
		req, resp int
		done      chan struct{}
	}
	batches := new(atomic.Int64)
	bd := bundler.NewBundler((*item)(nil), func(bundle any) {
		batches.Add(1)
		for _, it := range bundle.([]*item) {
			it.resp = it.req + 1
			it.done <- struct{}{}
		}
	})
	bd.BundleCountThreshold = maxBatch
	bd.DelayThreshold = linger
	bd.BundleByteThreshold = 1 << 30
	bd.BufferedByteLimit = 1 << 30
	bd.HandlerLimit = 4
	pool := sync.Pool{New: func() any { return &item{done: make(chan struct{}, 1)} }}
	do := func(_ context.Context, key int) (int, error) {
		it := pool.Get().(*item)
		it.req = key
		if err := bd.Add(it, 1); err != nil {
			return 0, err
		}
		<-it.done
		v := it.resp
		pool.Put(it)
		return v, nil
	}
	return do, batches, bd.Flush
}

func BenchmarkBatch(b *testing.B) {
	for _, im := range impls {
		b.Run("impl="+im.name, func(b *testing.B) {
			do, batches, stop := im.make()
			defer stop()
			run(b, batches, do)
		})
	}
}

// TestPeersAnswer checks, under the race detector in CI, that every
// implementation of the benchmark answers every caller correctly and batches.
// Natural batching is the exception: a caller whose batch goes at once runs
// its flush (which never blocks here) on its own goroutine, so callers share
// a batch only when another runs on another core while a flush is in flight.
// With one P none does, and every batch holds one item, as natural batching
// means it to (at -cpu 1 the check failed every time); with two Ps on a VM
// whose other core is busy elsewhere the same happens now and then (1 run in
// 40, and 4 in 10 with the process held to one core by taskset). Its batching
// is tested where the timing is explicit, in the batcher package
// (TestNaturalGathersWhileInFlight, TestNaturalFullBatchWhileInFlight).
func TestPeersAnswer(t *testing.T) {
	for _, im := range impls {
		t.Run(im.name, func(t *testing.T) {
			do, batches, stop := im.make()
			defer stop()
			var wg sync.WaitGroup
			var bad atomic.Int64
			for w := range callers {
				wg.Go(func() {
					for i := range 20 {
						key := w*keySpace + i
						if v, err := do(context.Background(), key); err != nil || v != key+1 {
							bad.Add(1)
						}
					}
				})
			}
			wg.Wait()
			require.Zero(t, bad.Load(), "wrong answers")
			if im.name == "tierkit-natural" {
				require.LessOrEqual(t, batches.Load(), int64(callers*20), "more batches than items")
				return
			}
			require.Less(t, batches.Load(), int64(callers*20), "items were batched")
		})
	}
}
