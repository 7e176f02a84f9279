package aimd_test

import (
	"sync"
	"testing"
	"time"

	"github.com/tierkit/tierkit/aimd"
)

var sinkF float64

// BenchmarkUpdate is the pure control step.
func BenchmarkUpdate(b *testing.B) {
	b.ReportAllocs()
	l := 100.0
	i := 0
	for b.Loop() {
		l = aimd.Update(l, float64(i%3)*0.6, params)
		i++
	}
	sinkF = l
}

func benchLimiter(b *testing.B, cfg aimd.Config) *aimd.Limiter {
	cfg.Signal = aimd.SignalFunc(func(time.Time) (float64, error) { return 0.5, nil })
	cfg.MemoryLimit = -1
	cfg.Max = 1 << 20
	cfg.Initial = 1 << 20
	l, err := aimd.New(cfg)
	if err != nil {
		b.Fatal(err)
	}
	return l
}

// BenchmarkTryAcquire is one admission and its done call, with the lazy control
// step due every 100ms of real time.
func BenchmarkTryAcquire(b *testing.B) {
	for _, tc := range []struct {
		name string
		cfg  aimd.Config
	}{
		{"concurrency", aimd.Config{}},
		{"concurrency+rate", aimd.Config{MaxRate: 1e12}},
	} {
		b.Run(tc.name, func(b *testing.B) {
			l := benchLimiter(b, tc.cfg)
			b.ReportAllocs()
			for b.Loop() {
				done, err := l.TryAcquire()
				if err != nil {
					b.Fatal(err)
				}
				done(true)
			}
		})
	}
}

// BenchmarkTryAcquireParallel is the same from every P.
func BenchmarkTryAcquireParallel(b *testing.B) {
	l := benchLimiter(b, aimd.Config{})
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			done, err := l.TryAcquire()
			if err != nil {
				b.Fatal(err)
			}
			done(true)
		}
	})
}

// BenchmarkNaiveBaseline is a bare mutex-guarded in-flight counter: the least a
// concurrency limit can cost.
func BenchmarkNaiveBaseline(b *testing.B) {
	var mu sync.Mutex
	inflight, limit := 0, 1<<20
	b.ReportAllocs()
	for b.Loop() {
		mu.Lock()
		if inflight < limit {
			inflight++
		}
		mu.Unlock()
		mu.Lock()
		inflight--
		mu.Unlock()
	}
}
