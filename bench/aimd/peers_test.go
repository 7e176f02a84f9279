package aimdbench

import (
	"context"
	"github.com/tierkit/tierkit/bench/internal/cputime"
	"testing"
	"time"

	"github.com/platinummonkey/go-concurrency-limits/core"
	"github.com/platinummonkey/go-concurrency-limits/limit"
	"github.com/platinummonkey/go-concurrency-limits/limiter"
	"github.com/platinummonkey/go-concurrency-limits/strategy"
	"golang.org/x/time/rate"

	"github.com/tierkit/tierkit/aimd"
)

// A limit high enough that every decision admits: the benchmark measures the
// cost of deciding, not of waiting.
const big = 1 << 20

func newAIMD(tb testing.TB, withRate bool) *aimd.Limiter {
	cfg := aimd.Config{
		Signal:      aimd.SignalFunc(func(time.Time) (float64, error) { return 0.5, nil }),
		Max:         big,
		MemoryLimit: -1,
	}
	if withRate {
		cfg.MaxRate = 1e12
	}
	l, err := aimd.New(cfg)
	if err != nil {
		tb.Fatal(err)
	}
	return l
}

func newGCL(tb testing.TB, l core.Limit) *limiter.DefaultLimiter {
	lim, err := limiter.NewDefaultLimiter(l, 1e9, 1e9, 1e5, 100,
		strategy.NewSimpleStrategy(big), limit.NoopLimitLogger{}, core.EmptyMetricRegistryInstance)
	if err != nil {
		tb.Fatal(err)
	}
	return lim
}

func gclAIMD(tb testing.TB) *limiter.DefaultLimiter {
	return newGCL(tb, limit.NewAIMDLimit("aimd", big, 0.9, 1, core.EmptyMetricRegistryInstance))
}

func gclGradient2(tb testing.TB) *limiter.DefaultLimiter {
	g, err := limit.NewGradient2Limit("g2", big, big, 20, func(int) int { return 4 }, 0.2, 600,
		limit.NoopLimitLogger{}, core.EmptyMetricRegistryInstance)
	if err != nil {
		tb.Fatal(err)
	}
	return newGCL(tb, g)
}

// BenchmarkAdmit: one admission and its release, on one goroutine.
func BenchmarkAdmit(b *testing.B) {
	ctx := context.Background()
	b.Run("impl=tierkit-aimd/concurrency", func(b *testing.B) {
		l := newAIMD(b, false)
		b.ReportAllocs()
		stop := reportCPU(b)
		for b.Loop() {
			done, err := l.TryAcquire()
			if err != nil {
				b.Fatal(err)
			}
			done(true)
		}
		stop()
	})
	b.Run("impl=tierkit-aimd/concurrency+rate", func(b *testing.B) {
		l := newAIMD(b, true)
		b.ReportAllocs()
		stop := reportCPU(b)
		for b.Loop() {
			done, err := l.TryAcquire()
			if err != nil {
				b.Fatal(err)
			}
			done(true)
		}
		stop()
	})
	b.Run("impl=x-time-rate/Allow", func(b *testing.B) {
		l := rate.NewLimiter(rate.Limit(1e12), big)
		b.ReportAllocs()
		stop := reportCPU(b)
		for b.Loop() {
			if !l.Allow() {
				b.Fatal("refused")
			}
		}
		stop()
	})
	for _, p := range []struct {
		name string
		new  func(testing.TB) *limiter.DefaultLimiter
	}{{"impl=gcl/AIMD", gclAIMD}, {"impl=gcl/Gradient2", gclGradient2}} {
		b.Run(p.name, func(b *testing.B) {
			l := p.new(b)
			b.ReportAllocs()
			stop := reportCPU(b)
			for b.Loop() {
				lis, ok := l.Acquire(ctx)
				if !ok {
					b.Fatal("refused")
				}
				lis.OnSuccess()
			}
			stop()
		})
	}
}

// BenchmarkAdmitParallel: the same from every P against one shared limiter.
func BenchmarkAdmitParallel(b *testing.B) {
	ctx := context.Background()
	b.Run("impl=tierkit-aimd/concurrency", func(b *testing.B) {
		l := newAIMD(b, false)
		b.ReportAllocs()
		b.ResetTimer()
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				done, err := l.TryAcquire()
				if err != nil {
					b.Error(err) // not Fatal: this is not the benchmark's goroutine
					return
				}
				done(true)
			}
		})
	})
	b.Run("impl=x-time-rate/Allow", func(b *testing.B) {
		l := rate.NewLimiter(rate.Limit(1e12), big)
		b.ReportAllocs()
		b.ResetTimer()
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				if !l.Allow() {
					b.Error("refused")
					return
				}
			}
		})
	})
	for _, p := range []struct {
		name string
		new  func(testing.TB) *limiter.DefaultLimiter
	}{{"impl=gcl/AIMD", gclAIMD}, {"impl=gcl/Gradient2", gclGradient2}} {
		b.Run(p.name, func(b *testing.B) {
			l := p.new(b)
			b.ReportAllocs()
			b.ResetTimer()
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					lis, ok := l.Acquire(ctx)
					if !ok { // a refusal skips OnSuccess: it would look fast
						b.Error("refused")
						return
					}
					lis.OnSuccess()
				}
			})
		})
	}
}

// BenchmarkReject: the decision when the limit is reached (the common case
// under overload).
func BenchmarkReject(b *testing.B) {
	ctx := context.Background()
	b.Run("impl=tierkit-aimd", func(b *testing.B) {
		l, err := aimd.New(aimd.Config{
			Signal: aimd.SignalFunc(func(time.Time) (float64, error) { return 0.5, nil }),
			Max:    1, MemoryLimit: -1,
		})
		if err != nil {
			b.Fatal(err)
		}
		done, err := l.TryAcquire() // holds the only slot
		if err != nil {
			b.Fatal(err)
		}
		defer done(true)
		b.ReportAllocs()
		stop := reportCPU(b)
		for b.Loop() {
			if _, err := l.TryAcquire(); err == nil {
				b.Fatal("admitted")
			}
		}
		stop()
	})
	b.Run("impl=x-time-rate/Allow", func(b *testing.B) {
		l := rate.NewLimiter(rate.Limit(1e-9), 1)
		l.Allow()
		b.ReportAllocs()
		stop := reportCPU(b)
		for b.Loop() {
			if l.Allow() {
				b.Fatal("admitted")
			}
		}
		stop()
	})
	b.Run("impl=gcl/AIMD", func(b *testing.B) {
		l := newGCL(b, limit.NewAIMDLimit("aimd", 1, 0.9, 1, core.EmptyMetricRegistryInstance))
		lis, ok := l.Acquire(ctx)
		if !ok {
			b.Fatal("first refused")
		}
		defer lis.OnSuccess()
		b.ReportAllocs()
		stop := reportCPU(b)
		for b.Loop() {
			if _, ok := l.Acquire(ctx); ok {
				b.Fatal("admitted")
			}
		}
		stop()
	})
}

// BenchmarkControlStep: the pure AIMD update against the peer's limit update on
// a sample (AIMDLimit.OnSample).
func BenchmarkControlStep(b *testing.B) {
	p := aimd.Params{Target: 0.9, Increase: 1, Gain: 0.5, Decrease: 0.7, Min: 1, Max: 1000}
	b.Run("impl=tierkit-aimd/Update", func(b *testing.B) {
		l := 100.0
		i := 0
		b.ReportAllocs()
		stop := reportCPU(b)
		for b.Loop() {
			l = aimd.Update(l, float64(i%3)*0.6, p)
			i++
		}
		stop()
	})
	b.Run("impl=gcl/AIMD.OnSample", func(b *testing.B) {
		l := limit.NewAIMDLimit("aimd", 100, 0.9, 1, core.EmptyMetricRegistryInstance)
		i := 0
		b.ReportAllocs()
		stop := reportCPU(b)
		for b.Loop() {
			l.OnSample(0, 1000, 10, i%3 == 0)
			i++
		}
		stop()
	})
}

// reportCPU reports the process's CPU time per op (cputime.ReportProcess),
// not the benchmark thread's: the go-concurrency-limits peers allocate 1-3
// objects per decision, and the GC marks that garbage on threads of its own,
// which a thread clock leaves out (cputime's doc: not ReportThread where work
// moves to other goroutines). tierkit's paths and x/time/rate's allocate
// nothing; for them the two clocks read alike.
func reportCPU(b *testing.B) (stop func()) { return cputime.ReportProcess(b) }
