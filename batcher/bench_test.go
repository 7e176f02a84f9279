package batcher_test

import (
	"context"
	"runtime"
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
