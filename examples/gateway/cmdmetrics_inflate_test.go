package main

import (
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// inflateDurations are the latencies TestCmdCollectorInflates observes, each
// whole seconds or zero so that the sum is exact, and the buckets they fall
// in (latencyBucketCount: above the top bound, in +Inf alone).
var inflateDurations = []struct {
	d      time.Duration
	bucket int
}{{0, 0}, {time.Second, 15}, {2 * time.Second, 16}, {5 * time.Second, 17}, {7 * time.Second, latencyBucketCount}}

// TestCmdCollectorInflates: a series several goroutines write at once gets
// its wide stripes, and scrapes taken meanwhile, before, during and after
// the switch, are consistent snapshots: ok+error is the count, the sum is
// what the buckets' observations add up to, nothing goes down between
// scrapes; once the writers stop, the totals are the observations made.
func TestCmdCollectorInflates(t *testing.T) {
	if runtime.GOMAXPROCS(0) < 2 {
		t.Skip("goroutines write a series at once only on two Ps or more")
	}
	c, reg, tenants := newTestCollector(t, "a")
	tn, spec := tenants["a"], commands["GET"]
	// after: observations each writer makes once the series inflated; most:
	// a bound on them all should it never inflate.
	const writers, after, most = 4, 20_000, 10_000_000
	var start sync.WaitGroup // the barrier: all writers start together
	start.Add(1)
	var stop atomic.Bool
	made := make([][latencyBucketCount + 1]uint64, writers)
	oks := make([]uint64, writers)
	var wg sync.WaitGroup
	for w := range writers {
		wg.Go(func() {
			start.Wait()
			left := after // observations after the series inflated
			for i := 0; left > 0 && i < most && !stop.Load(); i++ {
				o := inflateDurations[(w+i)%len(inflateDurations)]
				ok := i%3 != 0
				c.observe(tn, spec, ok, o.d)
				made[w][o.bucket]++
				if ok {
					oks[w]++
				}
				if tn.series[spec.idx].Load().wide.Load() != nil {
					left--
				}
			}
		})
	}
	c.observe(tn, spec, true, 0) // binds the series before the writers start
	made[0][0]++
	oks[0]++
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	start.Done()
	var prev *cmdSample
	scrapes := 0
	for running := true; running; scrapes++ {
		select {
		case <-done:
			running = false
		default:
		}
		s := gatherCmds(t, reg)["a/GET"]
		if !checkInflateSnapshot(t, s, prev) {
			stop.Store(true)
			<-done
			t.FailNow()
		}
		prev = s
	}
	cs := tn.series[spec.idx].Load()
	require.NotNil(t, cs.wide.Load(), "a series written by %d goroutines at once never inflated", writers)
	require.Len(t, *cs.wide.Load(), int(c.smask+1))

	var want [latencyBucketCount + 1]uint64
	var wantOK, wantCount uint64
	for w := range writers {
		for b, n := range made[w] {
			want[b] += n
			wantCount += n
		}
		wantOK += oks[w]
	}
	s := gatherCmds(t, reg)["a/GET"]
	require.Equal(t, wantCount, s.count)
	require.Equal(t, float64(wantOK), s.ok)
	require.Equal(t, float64(wantCount-wantOK), s.failed)
	require.Equal(t, float64(want[15]+2*want[16]+5*want[17]+7*want[latencyBucketCount]), s.sum)
	require.Equal(t, want[0], s.buckets[0])
	require.Equal(t, wantCount-want[latencyBucketCount], s.buckets[latencyBucketCount-1])
	t.Logf("%d observations, %d scrapes", wantCount, scrapes)
}

// checkInflateSnapshot reports whether s, a scrape of inflateDurations'
// observations, is consistent and holds all of prev.
func checkInflateSnapshot(t *testing.T, s, prev *cmdSample) bool {
	t.Helper()
	if s == nil {
		t.Errorf("no a/GET series")
		return false
	}
	// The count is the +Inf bucket: it holds the top finite one, and with
	// the buckets it tells how many of each duration the scrape holds, which
	// the sum must add up to.
	b := s.buckets
	good := assert.Equal(t, float64(s.count), s.ok+s.failed, "ok+error against the count") &&
		assert.LessOrEqual(t, b[17], s.count, "top finite bucket against +Inf") &&
		assert.Equal(t, b[0], b[14], "observations between 0 and 1 s") &&
		assert.IsNonDecreasing(t, b, "cumulative buckets")
	if good {
		n1, n2, n5, n7 := b[15]-b[14], b[16]-b[15], b[17]-b[16], s.count-b[17]
		good = assert.Equal(t, float64(n1+2*n2+5*n5+7*n7), s.sum, "sum against the buckets")
	}
	if prev != nil {
		if s.count < prev.count || s.ok < prev.ok || s.failed < prev.failed || s.sum < prev.sum {
			t.Errorf("totals went down: %+v after %+v", *s, *prev)
			good = false
		}
		for i := range b {
			if b[i] < prev.buckets[i] {
				t.Errorf("bucket %d went down: %d after %d", i, b[i], prev.buckets[i])
				good = false
			}
		}
	}
	return good
}
