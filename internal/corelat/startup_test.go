package corelat

import (
	"runtime"
	"testing"
	"time"
)

// TestRoundTripExcludesStartup: the time the echoing goroutine takes to start
// echoing is not a round trip. It is a wake-up of an idle thread, tens of
// microseconds on a VM, which spread over a round of 4,000 passes added about
// 15 ns to every round trip of about 100 ns. Here the echoing goroutine starts
// echoing 500 ms late: counted in, that adds 250 ms to each of 2 round trips,
// where a round trip takes well under 100 ms even on a loaded machine (a few
// scheduler time slices).
func TestRoundTripExcludesStartup(t *testing.T) {
	if runtime.GOMAXPROCS(0) < 2 {
		t.Skip("needs GOMAXPROCS >= 2")
	}
	echoStart = func() { // busy, as a goroutine that has a core but not yet the line
		for start := time.Now(); time.Since(start) < 500*time.Millisecond; {
		}
	}
	defer func() { echoStart = nil }()
	d, ok := RoundTrip(1, 2)
	if !ok {
		t.Skip("the second goroutine got no core within a second (a loaded machine)")
	}
	if d >= 100*time.Millisecond {
		t.Fatalf("round trip %v: the echoing goroutine's start-up was counted in", d)
	}
}
