package main

import (
	"context"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"runtime"
	"time"

	"github.com/tierkit/tierkit/shed"
)

func init() {
	sections = append(sections, section{
		order: 50,
		name:  "shed",
		title: "a flooding tenant sheds alone; everyone else keeps draining",
		run:   tourShed,
	})
}

func tourShed(w io.Writer) error {
	if err := shedIsolation(w); err != nil {
		return err
	}
	return shedFastPath(w)
}

// shedIsolation drives the real drain core on a virtual clock: 500 normal
// tenants offering 70% of capacity and 3 noisy ones offering 60% more, one second
// of traffic on 16 slots of 1 ms each.
func shedIsolation(w io.Writer) error {
	const (
		slots   = 16
		unit    = time.Millisecond
		normal  = 500
		noisy   = 3
		horizon = time.Second
	)
	capacity := float64(slots) / unit.Seconds() // requests per second
	s, err := shed.NewScheduler[int](shed.Config{MaxQueue: 32, QueueDeadline: 50 * time.Millisecond, StandingDeadline: 10 * time.Millisecond})
	if err != nil {
		return err
	}
	rng := rand.New(rand.NewPCG(7, 7))
	names := make([]string, normal+noisy)
	for i := range names {
		names[i] = fmt.Sprintf("tenant-%d", i)
	}
	perNormal := 0.7 * capacity / normal
	perNoisy := 0.2 * capacity
	total := perNormal*normal + perNoisy*noisy
	epoch := time.Unix(0, 0)
	var busy []time.Duration // completion times of busy slots
	shedBy := make([]int, len(names))
	offered := make([]int, len(names))
	drop := func(t int) { shedBy[t]++ }
	pump := func(now time.Duration) {
		kept := busy[:0]
		for _, c := range busy {
			if c > now {
				kept = append(kept, c)
			}
		}
		busy = kept
		for len(busy) < slots {
			if _, _, ok := s.Pop(epoch.Add(now), math.MaxInt64, drop); !ok {
				return
			}
			busy = append(busy, now+unit)
		}
	}
	for t := time.Duration(0); t < horizon; {
		t += time.Duration(rng.ExpFloat64() / total * float64(time.Second))
		pump(t)
		tenant := rng.IntN(normal)
		if rng.Float64() < perNoisy*noisy/total {
			tenant = normal + rng.IntN(noisy)
		}
		offered[tenant]++
		if len(busy) < slots && s.Queued() == 0 {
			s.Admit(epoch.Add(t), names[tenant], 0, 1)
			busy = append(busy, t+unit)
			continue
		}
		if _, _, err := s.Push(epoch.Add(t), names[tenant], 0, 1, tenant); err != nil {
			shedBy[tenant]++
		}
	}
	var normalShedTenants, normalOffered, noisyShed, noisyOffered int
	for i := range names {
		if i < normal {
			normalOffered += offered[i]
			if shedBy[i] > 0 {
				normalShedTenants++
			}
			continue
		}
		noisyOffered += offered[i]
		noisyShed += shedBy[i]
	}
	load := float64(normalOffered+noisyOffered) / (capacity * horizon.Seconds())
	fmt.Fprintf(w, "   %d tenants at %.0f%% load for %v (virtual clock, real drain core):\n", normal+noisy, 100*load, horizon)
	fmt.Fprintf(w, "   %d normal tenants sent %d requests -> %d tenants saw a rejection\n", normal, normalOffered, normalShedTenants)
	fmt.Fprintf(w, "   %d noisy tenants sent %d requests -> %d shed (%.0f%%)\n", noisy, noisyOffered, noisyShed,
		100*float64(noisyShed)/float64(noisyOffered))
	if normalShedTenants != 0 || noisyShed == 0 {
		return fmt.Errorf("isolation failed: %d normal tenants shed, %d noisy requests shed", normalShedTenants, noisyShed)
	}
	return nil
}

// shedFastPath measures Acquire+release with free capacity over 1,350 tenants.
func shedFastPath(w io.Writer) error {
	s, err := shed.New(shed.Config{Capacity: shed.Fixed(1 << 20)})
	if err != nil {
		return err
	}
	names := make([]string, 1350)
	for i := range names {
		names[i] = fmt.Sprintf("use-case-%d", i)
	}
	ctx := context.Background()
	for _, n := range names {
		rel, err := s.Acquire(ctx, n, 0, 1)
		if err != nil {
			return err
		}
		rel()
	}
	const ops = 200_000
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	start := time.Now()
	for i := range ops {
		rel, err := s.Acquire(ctx, names[i%len(names)], i&1, 1)
		if err != nil {
			return err
		}
		rel()
	}
	el := time.Since(start)
	runtime.ReadMemStats(&after)
	fmt.Fprintf(w, "   fast path over 1,350 tenants: %.0f ns per Acquire+release, %.2f allocs per op (%d ops)\n",
		float64(el.Nanoseconds())/ops, float64(after.Mallocs-before.Mallocs)/ops, ops)
	return nil
}
