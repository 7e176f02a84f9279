package batcher_test

import (
	"context"
	"fmt"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tierkit/tierkit/batcher"
)

// benchCallers is the number of concurrent callers of the workload.
const benchCallers = 256

// benchBatch is MaxItems of the workload.
const benchBatch = 128

// setCallers makes RunParallel start benchCallers goroutines whatever -cpu is.
func setCallers(b *testing.B) {
	b.SetParallelism((benchCallers + runtime.GOMAXPROCS(0) - 1) / runtime.GOMAXPROCS(0))
}

// trivialFlush is the trivial backend: it answers each request with itself + 1.
func trivialFlush(_ context.Context, _ int, reqs []int, out []batcher.Result[int]) error {
	for i, r := range reqs {
		out[i].Resp = r + 1
	}
	return nil
}

// BenchmarkDo: 256 goroutines calling Do on one group, MaxItems 128, trivial
// backend. One op is one item.
func BenchmarkDo(b *testing.B) {
	bt, err := batcher.New(batcher.Config[int]{MaxItems: benchBatch, Linger: time.Millisecond}, trivialFlush)
	if err != nil {
		b.Fatal(err)
	}
	defer bt.Close()
	b.ReportAllocs()
	setCallers(b)
	var bad atomic.Int64
	b.RunParallel(func(pb *testing.PB) {
		ctx := context.Background()
		i := 0
		for pb.Next() {
			i++
			v, err := bt.Do(ctx, 0, i)
			if err != nil || v != i+1 {
				bad.Add(1)
			}
		}
	})
	b.StopTimer()
	if bad.Load() > 0 {
		b.Fatalf("%d wrong results", bad.Load())
	}
	s := bt.Stats()
	b.ReportMetric(100*s.MeanFill, "fill%")
	b.ReportMetric(float64(s.Batches)/float64(b.N), "batches/op")
}

// BenchmarkDoCancelable is BenchmarkDo with a cancelable context per caller (as a
// server's request context is), so Do waits in a select on two channels.
func BenchmarkDoCancelable(b *testing.B) {
	bt, err := batcher.New(batcher.Config[int]{MaxItems: benchBatch, Linger: time.Millisecond}, trivialFlush)
	if err != nil {
		b.Fatal(err)
	}
	defer bt.Close()
	b.ReportAllocs()
	setCallers(b)
	b.RunParallel(func(pb *testing.PB) {
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		i := 0
		for pb.Next() {
			i++
			if v, err := bt.Do(ctx, 0, i); err != nil || v != i+1 {
				b.Error("wrong result")
				return
			}
		}
	})
	b.StopTimer()
	b.ReportMetric(100*bt.Stats().MeanFill, "fill%")
}

// BenchmarkDoGroups: the same 256 callers spread over 16 groups (tenant x
// shard), MaxItems 8, so the shard map and many concurrent batches are exercised.
func BenchmarkDoGroups(b *testing.B) {
	bt, err := batcher.New(batcher.Config[int]{MaxItems: 8, Linger: time.Millisecond}, trivialFlush)
	if err != nil {
		b.Fatal(err)
	}
	defer bt.Close()
	b.ReportAllocs()
	setCallers(b)
	var worker atomic.Int64
	b.RunParallel(func(pb *testing.PB) {
		ctx := context.Background()
		g := int(worker.Add(1)) % 16
		i := 0
		for pb.Next() {
			i++
			if v, err := bt.Do(ctx, g, i); err != nil || v != i+1 {
				b.Error("wrong result")
				return
			}
		}
	})
	b.StopTimer()
	s := bt.Stats()
	b.ReportMetric(100*s.MeanFill, "fill%")
}

// naive is the hand-rolled batcher many services start with, as a baseline: one
// collector goroutine reading items from a channel, a reply channel per item, the
// flush called inline by the collector.
type naive struct {
	in     chan naiveReq
	max    int
	linger time.Duration
	done   chan struct{}
}

type naiveReq struct {
	v     int
	reply chan int
}

func newNaive(max int, linger time.Duration) *naive {
	n := &naive{in: make(chan naiveReq), max: max, linger: linger, done: make(chan struct{})}
	go n.loop()
	return n
}

func (n *naive) do(v int) int {
	reply := make(chan int, 1)
	n.in <- naiveReq{v, reply}
	return <-reply
}

func (n *naive) close() { close(n.in); <-n.done }

func (n *naive) loop() {
	defer close(n.done)
	batch := make([]naiveReq, 0, n.max)
	reqs := make([]int, 0, n.max)
	out := make([]batcher.Result[int], n.max)
	for first := range n.in {
		batch = append(batch[:0], first)
		timer := time.NewTimer(n.linger)
	collect:
		for len(batch) < n.max {
			select {
			case r, ok := <-n.in:
				if !ok {
					break collect
				}
				batch = append(batch, r)
			case <-timer.C:
				break collect
			}
		}
		timer.Stop()
		reqs = reqs[:0]
		for _, r := range batch {
			reqs = append(reqs, r.v)
		}
		_ = trivialFlush(context.Background(), 0, reqs, out[:len(reqs)])
		for i, r := range batch {
			r.reply <- out[i].Resp
		}
	}
}

// BenchmarkNaive is BenchmarkDo's workload on the naive channel batcher.
func BenchmarkNaive(b *testing.B) {
	n := newNaive(benchBatch, time.Millisecond)
	defer n.close()
	b.ReportAllocs()
	setCallers(b)
	b.RunParallel(func(pb *testing.PB) {
		i := 0
		for pb.Next() {
			i++
			if n.do(i) != i+1 {
				b.Error("wrong result")
				return
			}
		}
	})
}

// BenchmarkPolicy shows the trade-off of the flush policies: 1, 2 and 50
// submitters calling Do in a closed loop on one group, a backend that spins
// 50 us per call, MaxItems 128, a 1 ms linger. It reports the mean and
// p99 latency of one Do and the mean items per backend call. FlushOnLinger
// makes every partial batch wait out the linger; FlushNatural sends at once
// when the group has no flush in flight, so lone callers see the backend's
// latency and batches grow only with concurrency.
func BenchmarkPolicy(b *testing.B) {
	const backendDelay = 50 * time.Microsecond
	slow := func(_ context.Context, _ int, reqs []int, out []batcher.Result[int]) error {
		// Spin rather than sleep: a sleep this short lasts 1-2 ms on a busy
		// machine, which would hide the linger.
		for t0 := time.Now(); time.Since(t0) < backendDelay; {
		}
		return trivialFlush(context.Background(), 0, reqs, out)
	}
	for _, subs := range []int{1, 2, 50} {
		for _, p := range []batcher.FlushPolicy{batcher.FlushOnLinger, batcher.FlushNatural} {
			b.Run(fmt.Sprintf("submitters=%d/policy=%v", subs, p), func(b *testing.B) {
				bt, err := batcher.New(batcher.Config[int]{MaxItems: benchBatch, Linger: time.Millisecond, Policy: p}, slow)
				if err != nil {
					b.Fatal(err)
				}
				defer bt.Close()
				b.ReportAllocs()
				lat := make([][]time.Duration, subs)
				for w := range lat {
					lat[w] = make([]time.Duration, 0, b.N/subs+1)
				}
				var next, bad atomic.Int64
				var wg sync.WaitGroup
				b.ResetTimer()
				for w := range subs {
					wg.Go(func() {
						ctx := context.Background()
						for i := next.Add(1); i <= int64(b.N); i = next.Add(1) {
							t0 := time.Now()
							v, err := bt.Do(ctx, 0, int(i))
							lat[w] = append(lat[w], time.Since(t0))
							if err != nil || v != int(i)+1 {
								bad.Add(1)
							}
						}
					})
				}
				wg.Wait()
				b.StopTimer()
				if bad.Load() > 0 {
					b.Fatalf("%d wrong results", bad.Load())
				}
				var all []time.Duration
				var sum time.Duration
				for _, l := range lat {
					all = append(all, l...)
					for _, d := range l {
						sum += d
					}
				}
				slices.Sort(all)
				s := bt.Stats()
				b.ReportMetric(float64(sum.Microseconds())/float64(len(all)), "lat-us")
				b.ReportMetric(float64(all[len(all)*99/100].Microseconds()), "p99-us")
				b.ReportMetric(s.MeanBatchSize(), "items/batch")
				b.ReportMetric(100*s.MeanFill, "fill%")
			})
		}
	}
}

// BenchmarkDoPolicy is BenchmarkDo's workload (256 callers, MaxItems 128,
// trivial backend) under each flush policy, side by side.
func BenchmarkDoPolicy(b *testing.B) {
	for _, p := range []batcher.FlushPolicy{batcher.FlushOnLinger, batcher.FlushNatural} {
		b.Run("policy="+p.String(), func(b *testing.B) {
			bt, err := batcher.New(batcher.Config[int]{MaxItems: benchBatch, Linger: time.Millisecond, Policy: p}, trivialFlush)
			if err != nil {
				b.Fatal(err)
			}
			defer bt.Close()
			b.ReportAllocs()
			setCallers(b)
			var bad atomic.Int64
			b.RunParallel(func(pb *testing.PB) {
				ctx := context.Background()
				i := 0
				for pb.Next() {
					i++
					if v, err := bt.Do(ctx, 0, i); err != nil || v != i+1 {
						bad.Add(1)
					}
				}
			})
			b.StopTimer()
			if bad.Load() > 0 {
				b.Fatalf("%d wrong results", bad.Load())
			}
			s := bt.Stats()
			b.ReportMetric(100*s.MeanFill, "fill%")
			b.ReportMetric(s.MeanBatchSize(), "items/batch")
		})
	}
}

// BenchmarkTwoGroups: 64 callers, each with one item for each of two groups (a
// command over two shards) under FlushNatural, trivial backend. impl=goroutine
// sends the first item from a goroutine of its own and waits for both;
// impl=start adds it with Start and waits for it after Do. One op is one
// caller's pair.
func BenchmarkTwoGroups(b *testing.B) {
	for _, impl := range []string{"goroutine", "start"} {
		b.Run("impl="+impl, func(b *testing.B) {
			bt, err := batcher.New(batcher.Config[int]{MaxItems: benchBatch, Linger: time.Millisecond, Policy: batcher.FlushNatural}, trivialFlush)
			if err != nil {
				b.Fatal(err)
			}
			defer bt.Close()
			b.ReportAllocs()
			b.SetParallelism((64 + runtime.GOMAXPROCS(0) - 1) / runtime.GOMAXPROCS(0))
			var bad atomic.Int64
			b.RunParallel(func(pb *testing.PB) {
				ctx := context.Background()
				i := 0
				for pb.Next() {
					i++
					var v0, v1 int
					var err0, err1 error
					if impl == "start" {
						p := bt.Start(ctx, 0, i)
						v1, err1 = bt.Do(ctx, 1, i)
						v0, err0 = p.Wait()
					} else {
						var wg sync.WaitGroup
						wg.Go(func() { v0, err0 = bt.Do(ctx, 0, i) })
						v1, err1 = bt.Do(ctx, 1, i)
						wg.Wait()
					}
					if err0 != nil || err1 != nil || v0 != i+1 || v1 != i+1 {
						bad.Add(1)
					}
				}
			})
			b.StopTimer()
			if bad.Load() > 0 {
				b.Fatalf("%d wrong results", bad.Load())
			}
			b.ReportMetric(100*bt.Stats().MeanFill, "fill%")
		})
	}
}
