package aimd_test

import (
	"context"
	"testing"
	"testing/synctest"
	"time"

	"github.com/tierkit/tierkit/aimd"
)

// TestAcquireWaitsAtMostAPeriodForAToken: a long overload drives the rate
// toward MinRate (default 0) by the multiplicative decrease, to a tiny
// positive rate. A blocked Acquire must not sleep until that rate would earn
// its token (weeks): the loop steps lazily, on an admission attempt, and
// once the overload ends the next step raises the rate again, so the wait
// for a token is at most one control period before retrying.
func TestAcquireWaitsAtMostAPeriodForAToken(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		load := 2.0 // overloaded
		sig := aimd.SignalFunc(func(time.Time) (float64, error) { return load, nil })
		l, err := aimd.New(aimd.Config{Signal: sig, MaxRate: 100, Max: 10, Period: 100 * time.Millisecond,
			MemoryLimit: -1, HeapBytes: func() uint64 { return 0 }})
		if err != nil {
			t.Fatal(err)
		}
		for range 50 {
			l.Tick(time.Now())
		}
		for { // spend the bucket
			d, err := l.TryAcquire()
			if err != nil {
				break
			}
			d(true)
		}
		if r := l.Stats().Rate; r > 1e-5 {
			t.Fatalf("rate %v after 50 steps overloaded, want a tiny rate", r)
		}
		load = 0.1 // the overload ends
		const period = 100 * time.Millisecond
		start := time.Now()
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		got := make(chan error, 1)
		go func() {
			d, err := l.Acquire(ctx)
			if err == nil {
				d(true)
			}
			got <- err
		}()
		// Nothing else admits, so each step is the blocked Acquire's retry:
		// one must come in every period until it gets in.
		for {
			steps := l.Stats().Steps
			time.Sleep(period)
			synctest.Wait()
			select {
			case err := <-got:
				if err != nil {
					t.Fatalf("Acquire after the overload ended: %v after %v (rate %v): it slept for the token of the tiny rate and no step raised it",
						err, time.Since(start), l.Stats().Rate)
				}
				return
			default:
			}
			if l.Stats().Steps == steps {
				t.Fatalf("Acquire blocked %v with no step in the last period (rate %v): it sleeps longer than a period between retries",
					time.Since(start), l.Stats().Rate)
			}
		}
	})
}
