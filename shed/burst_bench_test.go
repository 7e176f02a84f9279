package shed_test

import (
	"fmt"
	"math"
	"testing"

	"github.com/tierkit/tierkit/shed"
)

// BenchmarkBurst admits (tickets) or queues (nodes) a burst of k requests and
// then drains it, per op. The free lists keep what the most recent bursts
// used, so repeated bursts recycle everything even past 64 requests (with a
// bound of max(64, in use) alone, k=1024 allocated 1,924 objects per burst
// of tickets and 960 of nodes, and cost 3-4x the time per request); the
// metric is per request of the burst.
func BenchmarkBurst(b *testing.B) {
	for _, k := range []int{64, 1024} {
		b.Run(fmt.Sprintf("kind=tickets/k=%d", k), func(b *testing.B) {
			s, err := shed.New(shed.Config{Capacity: shed.Fixed(1 << 30)})
			if err != nil {
				b.Fatal(err)
			}
			rels := make([]func(), k)
			b.ReportAllocs()
			for b.Loop() {
				for i := range rels {
					if rels[i], err = s.TryAcquire("a", 0, 1); err != nil {
						b.Fatal(err)
					}
				}
				for _, r := range rels {
					r()
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*k), "ns/request")
		})
		b.Run(fmt.Sprintf("kind=nodes/k=%d", k), func(b *testing.B) {
			s, err := shed.NewScheduler[int](shed.Config{MaxQueue: k, MaxQueueCost: int64(k)})
			if err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			for b.Loop() {
				for i := range k {
					if _, _, err := s.Push(t0, "a", 0, 1, i); err != nil {
						b.Fatal(err)
					}
				}
				for range k {
					s.Pop(t0, math.MaxInt64, nil)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*k), "ns/request")
		})
	}
}
