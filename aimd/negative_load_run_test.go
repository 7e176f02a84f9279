package aimd_test

import (
	"math"
	"testing"
	"time"

	"github.com/tierkit/tierkit/aimd"
)

// TestNegativeLoadKeepsOverloadRun: a negative sample carries no information
// (Update leaves the limit as it is, as for NaN), so it must not end a run of
// periods above the target either. It reset the run, so with Backoff below 1
// the next overloaded period was cut by the base Backoff (3%) instead of the
// escalated full correction (10%).
func TestNegativeLoadKeepsOverloadRun(t *testing.T) {
	limitAfter := func(noReading float64) int {
		loads := []float64{1, 1, 1, noReading, 1}
		i := 0
		l, err := aimd.New(aimd.Config{Manual: true, Target: 0.9, Initial: 100000, Max: 100000, Backoff: 0.3,
			MemoryLimit: -1, Signal: aimd.SignalFunc(func(time.Time) (float64, error) {
				v := loads[i]
				i++
				return v, nil
			})})
		if err != nil {
			t.Fatal(err)
		}
		now := time.Unix(0, 0)
		for range loads {
			now = now.Add(100 * time.Millisecond)
			if err := l.Tick(now); err != nil {
				t.Fatal(err)
			}
		}
		return l.Limit()
	}
	nan, neg := limitAfter(math.NaN()), limitAfter(-1)
	if neg != nan {
		t.Fatalf("after three overloaded periods, a reading of -1 and one more overloaded period: limit %d; with NaN instead of -1: %d (want the same)", neg, nan)
	}
}
