package main

import (
	"fmt"
	"io"
	"math"
	"time"

	"github.com/tierkit/tierkit/aimd"
)

func init() {
	sections = append(sections, section{
		order: 60,
		name:  "aimd",
		title: "an AIMD loop holds CPU at 90% as capacity changes; a memory guard with hysteresis",
		run:   tourAIMD,
	})
}

func tourAIMD(w io.Writer) error {
	if err := aimdCapacityDoubles(w); err != nil {
		return err
	}
	if err := aimdMemoryGuard(w); err != nil {
		return err
	}
	return aimdCost(w)
}

// aimdCapacityDoubles drives a Limiter with Tick on explicit time against a
// CPU-bound server whose utilization is the previous period's limit over its
// capacity; the capacity doubles at 10 s.
func aimdCapacityDoubles(w io.Writer) error {
	capacity := 100.0
	var l *aimd.Limiter
	prev := 0.0
	sig := aimd.SignalFunc(func(time.Time) (float64, error) {
		load := math.Min(1, prev/capacity)
		prev = float64(l.Limit())
		return load, nil
	})
	l, err := aimd.New(aimd.Config{Signal: sig, Manual: true, Initial: 1, MemoryLimit: -1})
	if err != nil {
		return err
	}
	prev = 1
	now := time.Unix(0, 0)
	const period = 100 * time.Millisecond
	settled, peak := time.Duration(-1), 0.0
	for i := 1; i <= 200; i++ {
		if i == 101 {
			capacity = 200
		}
		now = now.Add(period)
		if err := l.Tick(now); err != nil {
			return err
		}
		lim := float64(l.Limit())
		if i > 100 {
			peak = math.Max(peak, lim)
			if math.Abs(lim-180) > 18 {
				settled = -1
			} else if settled < 0 {
				settled = time.Duration(i-100) * period
			}
		}
	}
	fmt.Fprintf(w, "   capacity 100 -> 200 (equilibrium limit 90 -> 180): within 10%% after %v of control time, peak %.0f (%.1f%% overshoot), final %d\n",
		settled, peak, 100*(peak/180-1), l.Limit())
	return nil
}

// aimdMemoryGuard walks the heap reading up and down across the marks.
func aimdMemoryGuard(w io.Writer) error {
	var heap uint64
	l, err := aimd.New(aimd.Config{Manual: true, MemoryLimit: 1000,
		Signal:    aimd.SignalFunc(func(time.Time) (float64, error) { return 0.5, nil }),
		HeapBytes: func() uint64 { return heap }})
	if err != nil {
		return err
	}
	fmt.Fprint(w, "   memory guard (limit 1000 B, trip 90%, reset 80%): heap ")
	now := time.Unix(0, 0)
	for _, h := range []uint64{500, 920, 850, 790, 850} {
		heap = h
		now = now.Add(100 * time.Millisecond)
		if err := l.Tick(now); err != nil {
			return err
		}
		done, err := l.TryAcquire()
		verdict := "admit"
		if err != nil {
			verdict = "reject"
		} else {
			done(true)
		}
		fmt.Fprintf(w, "%d:%s ", h, verdict)
	}
	fmt.Fprintln(w)
	return nil
}

// aimdCost measures TryAcquire + done.
func aimdCost(w io.Writer) error {
	l, err := aimd.New(aimd.Config{Max: 1 << 20, Initial: 1 << 20, MemoryLimit: -1,
		Signal: aimd.SignalFunc(func(time.Time) (float64, error) { return 0.5, nil })})
	if err != nil {
		return err
	}
	const ops = 200_000
	start := time.Now()
	for range ops {
		done, err := l.TryAcquire()
		if err != nil {
			return err
		}
		done(true)
	}
	fmt.Fprintf(w, "   TryAcquire + done: %.0f ns per admission (%d ops)\n", float64(time.Since(start).Nanoseconds())/ops, ops)
	return nil
}
