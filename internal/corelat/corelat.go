package corelat

import (
	"runtime"
	"slices"
	"sync/atomic"
	"testing"
	"time"
)

type line struct {
	v atomic.Uint64
	_ [120]byte // the words of a and b never share a line, nor its neighbour (adjacent-line prefetch)
}

// RoundTrip returns the median over rounds of the time of one round trip, each
// round passing the counter passes times. It needs two goroutines running at
// once: with GOMAXPROCS below 2, or if a round takes longer than a second (the
// other goroutine got no core), it reports false.
func RoundTrip(rounds, passes int) (time.Duration, bool) {
	if runtime.GOMAXPROCS(0) < 2 || rounds < 1 || passes < 1 {
		return 0, false
	}
	times := make([]time.Duration, 0, rounds)
	for range rounds {
		d, ok := round(passes)
		if !ok {
			return 0, false
		}
		times = append(times, d)
	}
	slices.Sort(times)
	return times[len(times)/2], true
}

// echoStart, when set (by tests), runs as the echoing goroutine starts.
var echoStart func()

// round is one round of passes round trips. A first, untimed pass waits for the
// echoing goroutine to run: its start (waking an idle thread, tens of
// microseconds on a VM) is not a round trip. The echoing goroutine stops at the
// last pass or when the round is abandoned (stop), so none is left spinning.
func round(passes int) (time.Duration, bool) {
	var a, b, stop line
	// Pass 1 is the untimed one. Unsigned, passes+1 cannot wrap: in int64 it
	// did for math.MaxInt, and a round of no pass reported 1 ns.
	n := uint64(passes) + 1
	done := make(chan struct{})
	go func() {
		defer close(done)
		if echoStart != nil {
			echoStart()
		}
		for i := uint64(1); i <= n; i++ {
			for a.v.Load() != i {
				if stop.v.Load() != 0 {
					return
				}
			}
			b.v.Store(i)
		}
	}()
	deadline := time.Now().Add(time.Second)
	var start time.Time
	ok := true
	for i := uint64(1); i <= n && ok; i++ {
		if i == 2 {
			start = time.Now()
		}
		// Every 4,096 passes a look at the clock, so a round of short waits
		// (none long enough to look) still ends by its deadline.
		if i&0xfff == 0 && time.Now().After(deadline) {
			ok = false
			break
		}
		a.v.Store(i)
		for spins := 0; b.v.Load() != i; spins++ {
			if spins&0xffff == 0xffff && time.Now().After(deadline) {
				ok = false
				break
			}
		}
	}
	end := time.Now()
	d := end.Sub(start)
	// The looks at the clock are spaced (65,536 spins of a wait, 4,096
	// passes): a round can end past its deadline between two looks.
	ok = ok && !end.After(deadline)
	stop.v.Store(1)
	<-done
	return d / time.Duration(passes), ok
}

// Report measures the round trip before and after a benchmark's timed loop:
// call it before the loop and the func it returns right after it. Neither
// measurement is timed: Report stops the timer for its own and starts it again,
// and the func stops it for good. It reports them as c2c-ns and c2c-end-ns
// (nothing when RoundTrip cannot measure). A run of fewer than 1,000
// iterations is skipped, its func doing nothing (the timer keeps running):
// that spares the calibration runs two measurements each, but also leaves
// out a reported run that short (a slow benchmark, or -benchtime=100x).
func Report(b *testing.B) (stop func()) {
	if b.N < 1000 {
		return func() {}
	}
	b.StopTimer()
	before, ok := RoundTrip(5, 4000)
	b.StartTimer()
	return func() {
		b.StopTimer()
		after, ok2 := RoundTrip(5, 4000)
		if ok && ok2 {
			b.ReportMetric(float64(before.Nanoseconds()), "c2c-ns")
			b.ReportMetric(float64(after.Nanoseconds()), "c2c-end-ns")
		}
	}
}
