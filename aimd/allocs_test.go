package aimd_test

import (
	"testing"
	"time"

	"github.com/tierkit/tierkit/aimd"
)

// TestTryAcquireAllocatesNothing holds the package doc to its word: TryAcquire
// plus done allocates nothing, with a concurrency limit alone and with the token
// bucket too, admitted or rejected.
func TestTryAcquireAllocatesNothing(t *testing.T) {
	sig := aimd.SignalFunc(func(time.Time) (float64, error) { return 0.5, nil })
	for _, tt := range []struct {
		name     string
		cfg      aimd.Config
		hold     int     // slots taken before measuring
		admitted []int64 // Admitted afterwards: at least [0], at most [1]
	}{
		{"limit", aimd.Config{Signal: sig, Max: 1000, MemoryLimit: -1}, 0, []int64{1000, 1 << 20}},
		{"limit+bucket", aimd.Config{Signal: sig, Max: 1000, MaxRate: 1e12, MemoryLimit: -1}, 0, []int64{1000, 1 << 20}},
		{"rejected", aimd.Config{Signal: sig, Min: 1, Max: 1, MemoryLimit: -1}, 1, []int64{1, 1}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			l, err := aimd.New(tt.cfg)
			if err != nil {
				t.Fatal(err)
			}
			for range tt.hold {
				if _, err := l.TryAcquire(); err != nil {
					t.Fatal(err)
				}
			}
			n := testing.AllocsPerRun(1000, func() {
				if done, err := l.TryAcquire(); err == nil {
					done(true)
				}
			})
			if n != 0 {
				t.Errorf("%v allocations per TryAcquire, want 0", n)
			}
			if a := l.Stats().Admitted; a < tt.admitted[0] || a > tt.admitted[1] {
				t.Errorf("Admitted = %d, want in %v: the test must take the path it names", a, tt.admitted)
			}
		})
	}
}
