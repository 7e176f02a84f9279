package aimd_test

import (
	"sync"
	"testing"
	"time"

	"github.com/tierkit/tierkit/aimd"
)

// TestManualOffRacesParkedAdmission: SetConfig turning Manual off while an
// admission is parking the lazy loop (it read Manual before the swap) must
// still leave the loop running: a later admission steps.
func TestManualOffRacesParkedAdmission(t *testing.T) {
	sig := aimd.SignalFunc(func(time.Time) (float64, error) { return 0.5, nil })
	manual := aimd.Config{Signal: sig, Manual: true, MemoryLimit: -1}
	lazy := manual
	lazy.Manual = false
	t0 := time.Unix(1000, 0)
	for i := range 60000 {
		l, err := aimd.New(manual)
		if err != nil {
			t.Fatal(err)
		}
		var wg sync.WaitGroup
		start := make(chan struct{})
		wg.Go(func() {
			<-start
			if d, err := l.TryAcquireAt(t0); err == nil {
				d(true)
			}
		})
		wg.Go(func() {
			<-start
			if err := l.SetConfig(lazy); err != nil {
				t.Error(err)
			}
		})
		close(start)
		wg.Wait()
		if d, err := l.TryAcquireAt(t0.Add(time.Hour)); err == nil {
			d(true)
		}
		if l.Stats().Steps == 0 {
			t.Fatalf("iteration %d: Manual off, yet an admission an hour later took no step", i)
		}
	}
}
