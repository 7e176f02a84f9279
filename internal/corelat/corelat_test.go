package corelat

import (
	"runtime"
	"testing"
	"time"
)

func TestRoundTrip(t *testing.T) {
	if runtime.GOMAXPROCS(0) < 2 {
		if _, ok := RoundTrip(1, 10); ok {
			t.Fatal("RoundTrip reported a time with one P")
		}
		return
	}
	d, ok := RoundTrip(3, 1000)
	if !ok {
		t.Skip("the second goroutine got no core within a second (a loaded machine)")
	}
	// A round trip is two line transfers: tens of nanoseconds at least, and
	// far below a millisecond (under -race, atomics are slower).
	if d <= 0 || d > time.Millisecond {
		t.Fatalf("round trip %v: outside (0, 1ms]", d)
	}
}

func TestRoundTripRejectsBadArguments(t *testing.T) {
	for _, c := range []struct{ rounds, passes int }{{0, 10}, {3, 0}, {-1, -1}} {
		if _, ok := RoundTrip(c.rounds, c.passes); ok {
			t.Errorf("RoundTrip(%d, %d) reported a time", c.rounds, c.passes)
		}
	}
}

func BenchmarkReport(b *testing.B) {
	b.ReportAllocs()
	stop := Report(b)
	for range b.N {
		runtime.Gosched()
	}
	stop()
}
