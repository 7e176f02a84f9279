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
