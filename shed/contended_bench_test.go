package shed_test

import (
	"context"
	"fmt"
	"runtime"
	"runtime/metrics"
	"testing"
	"time"

	"github.com/tierkit/tierkit/shed"
)

// BenchmarkContended runs Acquire and release from many goroutines against a
// capacity smaller than their number, so that most requests queue and every
// release admits a waiter: the lock is taken to queue, to dispatch and to
// release, by goroutines that contend for it. It reports the time goroutines
// spent blocked on mutexes per request (runtime/metrics). The twenty-ninth
// session measured releases that never wait for the lock with it
// (bench/shed/README.md, "Releases handed to the lock's holder").
func BenchmarkContended(b *testing.B) {
	for _, g := range []int{8, 64} {
		b.Run(fmt.Sprintf("goroutines=%d", g), func(b *testing.B) {
			s, err := shed.New(shed.Config{Capacity: shed.Fixed(4), MaxQueue: 1 << 16, MaxQueueCost: 1 << 16,
				QueueDeadline: time.Hour, StandingDeadline: time.Hour})
			if err != nil {
				b.Fatal(err)
			}
			names := tenantNames(16)
			ctx := context.Background()
			sample := []metrics.Sample{{Name: "/sync/mutex/wait/total:seconds"}}
			metrics.Read(sample)
			wait0 := sample[0].Value.Float64()
			b.ReportAllocs()
			// RunParallel starts parallelism x GOMAXPROCS goroutines.
			b.SetParallelism(max(1, g/runtime.GOMAXPROCS(0)))
			b.RunParallel(func(pb *testing.PB) {
				i := 0
				for pb.Next() {
					r, err := s.Acquire(ctx, names[i%len(names)], i&1, 1)
					if err != nil {
						b.Error(err)
						return
					}
					r()
					i++
				}
			})
			metrics.Read(sample)
			b.ReportMetric((sample[0].Value.Float64()-wait0)*1e9/float64(b.N), "mutex-wait-ns/op")
		})
	}
}
