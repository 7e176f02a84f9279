package aimd_test

import (
	"math"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tierkit/tierkit/aimd"
)

// TestLatencySampleConcurrentWithObserve: a Sample concurrent with Observe
// calls sees each observation whole, in this window or the next: when every
// latency is 1 s, every mean is 1 s. The sum and the count were swapped out
// one after the other, so an Observe between the two swaps put its latency in
// one window and its count in the other (a mean of 2 s or 0.5 s, or 0 s: an
// idle reading).
func TestLatencySampleConcurrentWithObserve(t *testing.T) {
	var l aimd.Latency
	var stop atomic.Bool
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			for !stop.Load() {
				l.Observe(time.Second)
			}
		})
	}
	bad, seen := 0.0, false
	for range 20000 {
		if v, _ := l.Sample(time.Time{}); !math.IsNaN(v) && v != 1 {
			bad, seen = v, true
			break
		}
	}
	stop.Store(true)
	wg.Wait()
	if seen {
		t.Fatalf("mean latency %v s, every observation was 1 s", bad)
	}
}
