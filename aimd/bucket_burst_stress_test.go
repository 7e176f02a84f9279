package aimd_test

import (
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tierkit/tierkit/aimd"
)

// TestBucketBurstUnderConcurrency: on explicit time, goroutines admit at
// once while lazy steps, Ticks and SetConfig calls that swap Period run
// alongside. After each idle hour, a phase's admissions never exceed one
// burst (of the largest Period in force) plus what the rate earns over the
// phase's span: a burst never releases more than one control period's
// tokens, whatever the interleaving.
func TestBucketBurstUnderConcurrency(t *testing.T) {
	const (
		rate    = 1000.0
		long    = 100 * time.Millisecond
		short   = 20 * time.Millisecond
		workers = 4
		calls   = 300
		tick    = 50 * time.Microsecond // explicit time per call
	)
	sig := aimd.SignalFunc(func(time.Time) (float64, error) { return 0.5, nil }) // the rate stays at MaxRate
	cfg := aimd.Config{Signal: sig, Period: long, Max: aimd.MaxLimit, MinRate: rate, MaxRate: rate, MemoryLimit: -1}
	l := newLimiter(t, cfg)
	burst := rate * long.Seconds()
	for phase := range 20 {
		base := time.Unix(1_000_000+int64(phase)*3600, 0) // an idle hour before each phase
		var clock, admitted atomic.Int64
		var wg sync.WaitGroup
		for range workers {
			wg.Go(func() {
				for range calls {
					now := base.Add(time.Duration(clock.Add(int64(tick))))
					if done, err := l.TryAcquireAt(now); err == nil {
						admitted.Add(1)
						done(true)
					}
				}
			})
		}
		wg.Go(func() { // steps and Period swaps amid the admissions
			for i := range 20 {
				now := base.Add(time.Duration(clock.Load()))
				if err := l.Tick(now); err != nil {
					t.Error(err)
				}
				c := cfg
				if i%2 == 0 {
					c.Period = short
				}
				if err := l.SetConfig(c); err != nil {
					t.Error(err)
				}
			}
		})
		wg.Wait()
		span := time.Duration(clock.Load())
		if limit := burst + rate*span.Seconds(); float64(admitted.Load()) > limit {
			t.Fatalf("phase %d: %d admitted over %v, more than one burst (%v) plus %v earned",
				phase, admitted.Load(), span, burst, rate*span.Seconds())
		}
	}
}
