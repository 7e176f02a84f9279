package aimd_test

import (
	"math"
	"testing"
	"time"

	"github.com/tierkit/tierkit/aimd"
)

// A Max near math.MaxInt ("no upper bound") once rounded, as a float64 limit,
// to 2^63, which converts back to math.MinInt64: every admission was refused
// from the first one (Initial = Max) or from the step where the limit reached
// Max. Such bounds now count as MaxLimit.
func TestHugeLimitsAdmit(t *testing.T) {
	low := aimd.SignalFunc(func(time.Time) (float64, error) { return 0.1, nil })
	for _, tc := range []struct {
		name string
		cfg  aimd.Config
	}{
		{"Max MaxInt", aimd.Config{Max: math.MaxInt}},
		{"Max MaxInt-1", aimd.Config{Max: math.MaxInt - 1}},
		{"Max MaxInt, Initial 100", aimd.Config{Max: math.MaxInt, Initial: 100}},
		{"Min, Initial and Max MaxInt", aimd.Config{Min: math.MaxInt, Initial: math.MaxInt, Max: math.MaxInt}},
		{"Max MaxInt, Initial just below MaxLimit", aimd.Config{Max: math.MaxInt, Initial: aimd.MaxLimit - 5}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := tc.cfg
			cfg.Signal, cfg.Manual, cfg.MemoryLimit = low, true, -1
			l, err := aimd.New(cfg)
			if err != nil {
				t.Fatal(err)
			}
			now := time.Unix(1_700_000_000, 0)
			for i := range 200 { // the limit grows to Max and stays there
				if got := l.Limit(); got < 1 || got > aimd.MaxLimit {
					t.Fatalf("step %d: Limit() = %d, want in [1, %d]", i, got, aimd.MaxLimit)
				}
				if got := l.Stats().Limit; got != l.Limit() {
					t.Fatalf("step %d: Stats().Limit = %d, Limit() = %d", i, got, l.Limit())
				}
				done, err := l.TryAcquireAt(now)
				if err != nil {
					t.Fatalf("step %d: nothing in flight, TryAcquire: %v (Limit() = %d)", i, err, l.Limit())
				}
				done(true)
				now = now.Add(100 * time.Millisecond)
				if err := l.Tick(now); err != nil {
					t.Fatal(err)
				}
			}
			if got, want := l.Limit(), min(tc.cfg.Max, aimd.MaxLimit); got != want {
				t.Errorf("Limit() = %d after 200 light steps, want %d", got, want)
			}
		})
	}
}

// SetConfig takes the same bounds: a running Limiter given Max = math.MaxInt
// keeps admitting.
func TestHugeLimitsSetConfig(t *testing.T) {
	low := aimd.SignalFunc(func(time.Time) (float64, error) { return 0.1, nil })
	l, err := aimd.New(aimd.Config{Signal: low, Manual: true, MemoryLimit: -1, Max: 10})
	if err != nil {
		t.Fatal(err)
	}
	if err := l.SetConfig(aimd.Config{Signal: low, Manual: true, MemoryLimit: -1, Max: math.MaxInt, Initial: math.MaxInt}); err != nil {
		t.Fatal(err)
	}
	now := time.Unix(1_700_000_000, 0)
	for i := range 50 {
		now = now.Add(100 * time.Millisecond)
		if err := l.Tick(now); err != nil {
			t.Fatal(err)
		}
		done, err := l.TryAcquireAt(now)
		if err != nil {
			t.Fatalf("step %d: TryAcquire: %v (Limit() = %d)", i, err, l.Limit())
		}
		done(true)
	}
}
