package aimd_test

import (
	"fmt"
	"time"

	"github.com/tierkit/tierkit/aimd"
)

// A Limiter on explicit time: the signal reports overload, and one control step
// backs the concurrency limit off.
func Example() {
	load := 1.8 // twice the 90% target
	l, err := aimd.New(aimd.Config{
		Signal:      aimd.SignalFunc(func(time.Time) (float64, error) { return load, nil }),
		Manual:      true, // stepped by Tick below
		Max:         100,
		MemoryLimit: -1,
	})
	if err != nil {
		panic(err)
	}
	fmt.Println("limit:", l.Limit())
	_ = l.Tick(time.Unix(0, 0))
	fmt.Println("after overload:", l.Limit())
	load = 0.45
	_ = l.Tick(time.Unix(0, 1e8))
	fmt.Println("with headroom:", l.Limit())
	// Output:
	// limit: 100
	// after overload: 70
	// with headroom: 88
}

func ExampleLimiter_TryAcquire() {
	l, _ := aimd.New(aimd.Config{Manual: true, Max: 1, MemoryLimit: -1,
		Signal: aimd.SignalFunc(func(time.Time) (float64, error) { return 0.5, nil })})
	done, err := l.TryAcquire()
	if err != nil {
		return // shed: aimd.ErrLimitExceeded or aimd.ErrMemory
	}
	_, err = l.TryAcquire()
	fmt.Println(err)
	done(true) // the work succeeded
	fmt.Println(l.Stats().Succeeded)
	// Output:
	// aimd: limit exceeded
	// 1
}

func ExampleUpdate() {
	p := aimd.Params{Target: 0.9, Increase: 1, Decrease: 0.5, Min: 1, Max: 100}
	fmt.Println(aimd.Update(50, 0.5, p)) // below target: add
	fmt.Println(aimd.Update(50, 1.8, p)) // above: multiply by max(0.5, 0.9/1.8)
	// Output:
	// 51
	// 25
}

// Fast recovery: an outside CPU hog saturates the signal for four periods and
// the loop cuts the limit; after it leaves, the readings come back below the
// target (lagging the limit by a period). With Recover the limit is back at
// the value held before the cuts at the first such reading; the gradual climb
// of Update alone takes longer.
func ExampleRecover() {
	p := aimd.Params{Target: 0.9, Increase: 0.1, Gain: 0.4, Backoff: 0.3, Decrease: 0.9, Min: 1, Max: 256}
	withR, without := 90.0, 90.0
	var state aimd.RecoverState
	above := 0
	for _, load := range []float64{1.0, 1.0, 1.0, 1.0, 0.7, 0.75, 0.9} {
		if load > p.Target {
			above++
		} else {
			above = 0
		}
		q := p
		q.Backoff = aimd.EscalatedBackoff(p.Backoff, above) // as a Limiter escalates it
		withR, state = aimd.Recover(withR, aimd.Update(withR, load, q), load, state, q)
		without = aimd.Update(without, load, q)
		fmt.Printf("load %.2f: limit %.1f with Recover, %.1f without\n", load, withR, without)
	}
	// Output:
	// load 1.00: limit 87.3 with Recover, 87.3 without
	// load 1.00: limit 84.7 with Recover, 84.7 without
	// load 1.00: limit 79.6 with Recover, 79.6 without
	// load 1.00: limit 71.6 with Recover, 71.6 without
	// load 0.70: limit 90.0 with Recover, 78.1 without
	// load 0.75: limit 90.0 with Recover, 83.4 without
	// load 0.90: limit 90.1 with Recover, 83.5 without
}
