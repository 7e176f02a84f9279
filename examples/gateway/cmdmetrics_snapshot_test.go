package main

import (
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestCmdCollectorSnapshotConsistent: a scrape taken while commands are
// observed is a consistent snapshot, as client_golang's histograms give:
// count, sum, buckets and outcomes hold the same observations. Every
// observation here is 1 s (bucket 1.6384 s), so the top finite bucket, the
// sum and ok+error must equal the count in every scrape. The collector
// read each stripe's atomics one by one: a command counted before its bucket
// was added showed in +Inf alone, a phantom command slower than the top
// bound (6.55 s), and the sum could hold a command the count did not.
func TestCmdCollectorSnapshotConsistent(t *testing.T) {
	c, reg, tenants := newTestCollector(t, "a")
	tn, spec := tenants["a"], commands["GET"]
	c.observe(tn, spec, true, time.Second) // binds the series
	var stop atomic.Bool
	var wg sync.WaitGroup
	for w := range 2 {
		wg.Go(func() {
			for i := 0; i < 1_000_000 && !stop.Load(); i++ {
				c.observe(tn, spec, (w+i)%3 != 0, time.Second)
				if i%16 == 15 {
					runtime.Gosched() // a pipeline's run of 16 answered, the next one read
				}
			}
		})
	}
	defer func() { stop.Store(true); wg.Wait() }()
	for range 2000 {
		s := gatherCmds(t, reg)["a/GET"]
		require.NotNil(t, s)
		require.Equal(t, s.count, s.buckets[len(s.buckets)-1], "a command counted above the top bound")
		require.Equal(t, float64(s.count), s.sum, "sum of 1 s observations")
		require.Equal(t, float64(s.count), s.ok+s.failed)
	}
}

// TestCmdCollectorAboveTopBound: observations above the top bound count in
// the histogram's count (+Inf) and in no finite bucket, and in their outcome.
func TestCmdCollectorAboveTopBound(t *testing.T) {
	c, reg, tenants := newTestCollector(t, "a")
	tn, spec := tenants["a"], commands["GET"]
	top := time.Duration(latencyBucketNanos[latencyBucketCount-1])
	for _, d := range []time.Duration{top, top + 1, time.Minute, time.Millisecond} {
		c.observe(tn, spec, d != time.Minute, d)
	}
	s := gatherCmds(t, reg)["a/GET"]
	require.NotNil(t, s)
	require.Equal(t, uint64(4), s.count)
	require.Equal(t, uint64(2), s.buckets[len(s.buckets)-1], "top and 1 ms within the top bound")
	require.Equal(t, 3.0, s.ok)
	require.Equal(t, 1.0, s.failed)
}
