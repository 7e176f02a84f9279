package shedbench

import (
	"context"
	"fmt"
	"github.com/tierkit/tierkit/bench/internal/cputime"
	"testing"
	"time"

	"github.com/platinummonkey/go-concurrency-limits/core"
	"github.com/platinummonkey/go-concurrency-limits/limit"
	"github.com/platinummonkey/go-concurrency-limits/limiter"
	"github.com/platinummonkey/go-concurrency-limits/strategy"
	"golang.org/x/time/rate"

	"github.com/tierkit/tierkit/aimd"
	"github.com/tierkit/tierkit/shed"
)

// Both a fixed limit and an aimd.Limiter are shed capacities.
var (
	_ shed.Capacity = shed.Fixed(0)
	_ shed.Capacity = (*aimd.Limiter)(nil)
)

const big = 1 << 20

func names(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("tenant-%06d", i)
	}
	return out
}

type tenantKey struct{}

// gclPartitioned is a go-concurrency-limits limiter with one percentage partition
// per tenant (equal shares), looked up from the context.
func gclPartitioned(tb testing.TB, tenants []string, l core.Limit, lim int32) (*limiter.DefaultLimiter, []context.Context) {
	parts := make(map[string]*strategy.LookupPartition, len(tenants))
	ctxs := make([]context.Context, len(tenants))
	for i, t := range tenants {
		parts[t] = strategy.NewLookupPartitionWithMetricRegistry(t, 1/float64(len(tenants))*0.999, lim, core.EmptyMetricRegistryInstance)
		ctxs[i] = context.WithValue(context.Background(), tenantKey{}, t)
	}
	st, err := strategy.NewLookupPartitionStrategyWithMetricRegistry(parts,
		func(ctx context.Context) string { s, _ := ctx.Value(tenantKey{}).(string); return s },
		lim, core.EmptyMetricRegistryInstance)
	if err != nil {
		tb.Fatal(err)
	}
	dl, err := limiter.NewDefaultLimiter(l, 1e9, 1e9, 1e5, 100, st, limit.NoopLimitLogger{}, core.EmptyMetricRegistryInstance)
	if err != nil {
		tb.Fatal(err)
	}
	return dl, ctxs
}

func gradient2(tb testing.TB, initial int) core.Limit {
	g, err := limit.NewGradient2Limit("g2", initial, max(initial, 20), 1, func(int) int { return 4 }, 0.2, 600,
		limit.NoopLimitLogger{}, core.EmptyMetricRegistryInstance)
	if err != nil {
		tb.Fatal(err)
	}
	return g
}

// BenchmarkAdmit: capacity free, one decision and its release per op, cycling
// over 1,350 tenants.
func BenchmarkAdmit(b *testing.B) {
	tenants := names(1350)
	b.Run("impl=tierkit-shed", func(b *testing.B) {
		s, err := shed.New(shed.Config{Capacity: shed.Fixed(big)})
		if err != nil {
			b.Fatal(err)
		}
		ctx := context.Background()
		for i, t := range tenants { // create every tenant's state before timing
			rel, err := s.Acquire(ctx, t, i&1, 1)
			if err != nil {
				b.Fatal(err)
			}
			rel()
		}
		b.ReportAllocs()
		i := 0
		stop := reportCPU(b)
		for b.Loop() {
			rel, err := s.Acquire(ctx, tenants[i%len(tenants)], i&1, 1)
			if err != nil {
				b.Fatal(err)
			}
			rel()
			i++
		}
		stop()
	})
	b.Run("impl=x-time-rate/per-tenant-Allow", func(b *testing.B) {
		lims := make(map[string]*rate.Limiter, len(tenants))
		for _, t := range tenants {
			lims[t] = rate.NewLimiter(rate.Limit(1e12), big)
		}
		b.ReportAllocs()
		i := 0
		stop := reportCPU(b)
		for b.Loop() {
			if !lims[tenants[i%len(tenants)]].Allow() {
				b.Fatal("refused")
			}
			i++
		}
		stop()
	})
	for _, p := range []struct {
		name string
		lim  func(testing.TB) core.Limit
	}{
		{"impl=gcl/AIMD+partitions", func(testing.TB) core.Limit {
			return limit.NewAIMDLimit("aimd", big, 0.9, 1, core.EmptyMetricRegistryInstance)
		}},
		{"impl=gcl/Gradient2+partitions", func(tb testing.TB) core.Limit { return gradient2(tb, big) }},
	} {
		b.Run(p.name, func(b *testing.B) {
			l, ctxs := gclPartitioned(b, tenants, p.lim(b), big)
			b.ReportAllocs()
			i := 0
			stop := reportCPU(b)
			for b.Loop() {
				lis, ok := l.Acquire(ctxs[i%len(ctxs)])
				if !ok {
					b.Fatal("refused")
				}
				lis.OnSuccess()
				i++
			}
			stop()
		})
	}
}

// BenchmarkReject: the decision for a flooding tenant whose share is used up
// (shed: its bucket is full; rate: its bucket is empty; gcl: the limit is reached
// and its partition is over its share).
func BenchmarkReject(b *testing.B) {
	tenants := names(1350)
	b.Run("impl=tierkit-shed", func(b *testing.B) {
		s, err := shed.New(shed.Config{Capacity: shed.Fixed(1), MaxQueue: 1, QueueDeadline: time.Hour, StandingDeadline: time.Hour})
		if err != nil {
			b.Fatal(err)
		}
		hold, err := s.TryAcquire("other", 0, 1) // takes the only unit
		if err != nil {
			b.Fatal(err)
		}
		done := make(chan struct{})
		go func() { // one waiter fills the noisy bucket
			defer close(done)
			_, _ = s.Acquire(context.Background(), "noisy", 0, 1)
		}()
		for s.Stats().Queued == 0 {
			select {
			case <-done:
				b.Fatal("waiter left early")
			default:
			}
		}
		ctx := context.Background()
		b.ReportAllocs()
		stop := reportCPU(b)
		for b.Loop() {
			if _, err := s.Acquire(ctx, "noisy", 0, 1); err == nil {
				b.Fatal("admitted")
			}
		}
		stop()
		b.StopTimer()
		s.Close()
		<-done
		hold()
	})
	b.Run("impl=x-time-rate/per-tenant-Allow", func(b *testing.B) {
		lims := make(map[string]*rate.Limiter, len(tenants))
		for _, t := range tenants {
			lims[t] = rate.NewLimiter(rate.Limit(1e-9), 1)
			lims[t].Allow()
		}
		b.ReportAllocs()
		stop := reportCPU(b)
		for b.Loop() {
			if lims["tenant-000042"].Allow() {
				b.Fatal("admitted")
			}
		}
		stop()
	})
	b.Run("impl=gcl/AIMD+partitions", func(b *testing.B) {
		l, ctxs := gclPartitioned(b, tenants, limit.NewAIMDLimit("aimd", 1350, 0.9, 1, core.EmptyMetricRegistryInstance), 1350)
		var held []core.Listener
		for len(held) < 1350 { // the noisy tenant takes the whole limit
			lis, ok := l.Acquire(ctxs[42])
			if !ok {
				b.Fatal("setup refused")
			}
			held = append(held, lis)
		}
		b.ReportAllocs()
		stop := reportCPU(b)
		for b.Loop() {
			if _, ok := l.Acquire(ctxs[42]); ok {
				b.Fatal("admitted")
			}
		}
		stop()
		for _, lis := range held {
			lis.OnSuccess()
		}
	})
}

// reportCPU reports the process's CPU time per op (cputime.ReportProcess),
// not the benchmark thread's: the go-concurrency-limits peers allocate 1-3
// objects per decision, and the GC marks that garbage on threads of its own,
// which a thread clock leaves out (cputime's doc: not ReportThread where work
// moves to other goroutines). tierkit's paths and x/time/rate's allocate
// nothing; for them the two clocks read alike.
func reportCPU(b *testing.B) (stop func()) { return cputime.ReportProcess(b) }
