package rollout_test

import (
	"fmt"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/rollout"
)

var sink rollout.Decision

// benchConfig has rules for 20 services of 5 prefixes each (one catch-all, nested
// prefixes), two region filters: a realistic client flag set.
func benchConfig(services, perService int) rollout.Config {
	var cfg rollout.Config
	for s := range services {
		svc := fmt.Sprint("service-", s)
		cfg.Rules = append(cfg.Rules, rollout.Rule{Service: svc, Percent: 5})
		for p := 1; p < perService; p++ {
			cfg.Rules = append(cfg.Rules, rollout.Rule{
				Service: svc, Prefix: fmt.Sprintf("shard%02d:", p), Percent: float64(p * 10 % 100),
				Regions: []string{"eu-1", "us-2"},
			})
		}
	}
	return cfg
}

func benchQueries(n int) []rollout.Query {
	qs := make([]rollout.Query, n)
	for i := range qs {
		qs[i] = rollout.Query{
			Service: fmt.Sprint("service-", i%20),
			Key:     fmt.Sprintf("shard%02d:user:%d", i%7, i),
			Region:  []string{"eu-1", "us-2", "ap-3"}[i%3],
		}
	}
	return qs
}

// BenchmarkDecide is the target of the package: at most 50 ns and 0 allocations.
// Sub-benchmarks by rules per service cover the linear scan (5) and the per-length
// maps (40). The naive baseline scans the raw Config.
func BenchmarkDecide(b *testing.B) {
	qs := benchQueries(1024)
	for _, per := range []int{5, 40} {
		cfg := benchConfig(20, per)
		f, err := rollout.New(cfg)
		require.NoError(b, err)
		b.Run(fmt.Sprintf("rules=%d/compiled", len(cfg.Rules)), func(b *testing.B) {
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				sink = f.Decide(qs[i&1023])
				i++
			}
		})
		b.Run(fmt.Sprintf("rules=%d/naive", len(cfg.Rules)), func(b *testing.B) {
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				sink = naiveDecide(cfg, qs[i&1023])
				i++
			}
		})
	}
}

// BenchmarkDecideParallel: many goroutines deciding on one shared Flags; the decision
// path writes no shared memory, so it scales with cores.
func BenchmarkDecideParallel(b *testing.B) {
	f, err := rollout.New(benchConfig(20, 5))
	require.NoError(b, err)
	qs := benchQueries(1024)
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		var d rollout.Decision
		i := 0
		for pb.Next() {
			d = f.Decide(qs[i&1023])
			i++
		}
		_ = d
	})
}

// TestConcurrentSetConfig swaps configurations while readers decide; every decision
// must come from exactly one of the two configurations (never a mix).
func TestConcurrentSetConfig(t *testing.T) {
	a := rollout.Config{Rules: []rollout.Rule{{Service: "s", Percent: 100}, {Service: "s", Prefix: "x", Percent: 100}}}
	k := rollout.Config{Kill: true, Rules: a.Rules}
	f, err := rollout.New(a)
	require.NoError(t, err)
	var wg sync.WaitGroup
	for r := range 4 {
		wg.Go(func() {
			for i := range 20000 {
				d := f.Decide(rollout.Query{Service: "s", Key: fmt.Sprint("x", i, r)})
				if d.Reason != rollout.ReasonKilled && d.Reason != rollout.ReasonRamped {
					t.Errorf("torn decision %+v", d)
					return
				}
			}
		})
	}
	for i := range 2000 {
		require.NoError(t, f.SetConfig([]rollout.Config{a, k}[i%2]))
	}
	wg.Wait()
	require.Equal(t, uint64(2001), f.Stats().Swaps)
}

// TestDecideDoesNotAllocate pins the 0-allocation promise outside benchmarks.
func TestDecideDoesNotAllocate(t *testing.T) {
	f, err := rollout.New(benchConfig(20, 40))
	require.NoError(t, err)
	qs := benchQueries(64)
	i := 0
	allocs := testing.AllocsPerRun(1000, func() {
		sink = f.Decide(qs[i&63])
		i++
	})
	require.Zero(t, allocs)
}
