package aimd_test

import (
	"context"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tierkit/tierkit/aimd"
)

func TestStressConfigSwaps(t *testing.T) {
	var load atomic.Uint64
	sig := aimd.SignalFunc(func(time.Time) (float64, error) { return float64(load.Load()%200) / 100, nil })
	cfg := aimd.Config{Signal: sig, Period: time.Millisecond, Max: 8, MaxRate: 20000, MinRate: 100, MemoryLimit: -1, Recover: true}
	l, err := aimd.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			r := rand.New(rand.NewPCG(uint64(g), 3))
			for range 2000 {
				load.Add(uint64(r.IntN(7)))
				ctx, cancel := context.WithTimeout(context.Background(), time.Duration(r.IntN(2000))*time.Microsecond)
				done, err := l.Acquire(ctx)
				cancel()
				if err == nil {
					time.Sleep(time.Duration(r.IntN(100)) * time.Microsecond)
					done(r.IntN(2) == 0)
				}
			}
		})
	}
	wg.Go(func() {
		for i := range 100 {
			time.Sleep(time.Millisecond)
			c := cfg
			c.Max = 4 + i%8
			c.Manual = i%10 == 0
			l.SetConfig(c)
		}
	})
	wg.Wait()
	st := l.Stats()
	if st.InFlight != 0 || st.Admitted != st.Succeeded+st.Failed {
		t.Fatalf("%+v", st)
	}
	t.Logf("%+v", st)
}
