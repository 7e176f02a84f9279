package shed_test

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/tierkit/tierkit/shed"
)

// BenchmarkQueuedCold measures the scheduler's part of a queued request (a
// Push, and later its Pop) when the memory it touches has left the CPU's
// caches in between, as it has under overload: a request waits milliseconds
// in the queue while the handlers of others run. Each round queues one
// request for every tenant in a random order, evicts the caches by reading
// a buffer of evict bytes, pops every request, and evicts again; only the
// pushes and pops are timed, and ns/op is per request (push + pop). With
// evict=4MiB the tenants' lines come back from the shared last-level cache,
// with evict=64MiB mostly from memory. The real mode of examples/overload
// measures the same code with the rest of the shedder around it, but its
// share varies with the host from minute to minute; this isolates the
// scheduler's misses so that layouts can be compared.
func BenchmarkQueuedCold(b *testing.B) {
	for _, evict := range []int{4 << 20, 64 << 20} {
		for _, n := range []int{1350, 10000} {
			b.Run(fmt.Sprintf("evict=%dMiB/tenants=%d", evict>>20, n), func(b *testing.B) {
				benchQueuedCold(b, n, evict)
			})
		}
	}
}

// coldSink keeps the eviction's reads.
var coldSink uint64

func benchQueuedCold(b *testing.B, n, evict int) {
	s, err := shed.NewScheduler[int](shed.Config{Priorities: 2, MaxQueue: 64, QueueDeadline: time.Hour,
		StandingDeadline: time.Hour, FreshArrivalOrder: true, MaxTenants: 2 * n})
	if err != nil {
		b.Fatal(err)
	}
	names := tenantNames(n)
	now := time.Unix(1_700_000_000, 0)
	for i, name := range names { // every tenant's state exists
		if _, _, err := s.Push(now, name, 0, 1, i); err != nil {
			b.Fatal(err)
		}
		s.Pop(now, 1<<40, nil)
	}
	order := rand.New(rand.NewPCG(1, 2)).Perm(n)
	for _, i := range order { // and n queued requests' nodes
		if _, _, err := s.Push(now, names[i], i&1, 1, i); err != nil {
			b.Fatal(err)
		}
	}
	for s.Queued() > 0 {
		s.Pop(now, 1<<40, nil)
	}
	buf := make([]uint64, evict/8)
	flush := func() {
		var sum uint64
		for i := 0; i < len(buf); i += 8 { // a line at a time
			sum += buf[i]
		}
		coldSink += sum
	}
	b.ReportAllocs()
	b.ResetTimer()
	for done := 0; done < b.N; {
		b.StopTimer()
		flush()
		now = now.Add(time.Millisecond)
		b.StartTimer()
		k := 0
		for _, i := range order[:min(n, b.N-done)] {
			if _, _, err := s.Push(now, names[i], i&1, 1, i); err != nil {
				b.Fatal(err)
			}
			k++
		}
		b.StopTimer()
		flush()
		b.StartTimer()
		for range k {
			if _, _, ok := s.Pop(now, 1<<40, nil); !ok {
				b.Fatal("nothing to pop")
			}
		}
		done += k
	}
}
