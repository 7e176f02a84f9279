package main

import (
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
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

// aimdCapacityDoubles drives a Limiter against a server whose capacity
// doubles at 10 s (aimdCapacityStep), and checks what the section's title
// says, with the package's targets: the limit comes within 10% of the new
// equilibrium in at most 5 s of control time and stays there, with at most
// 10% overshoot.
func aimdCapacityDoubles(w io.Writer) error {
	r, err := aimdCapacityStep(w, 100, 200, 100)
	if err != nil {
		return err
	}
	return verify(aimdStepClaims(r)...)
}

// aimdStep is what aimdCapacityStep measured after the step: when the limit
// came to stay within 10% of the new equilibrium (-1 if it did not by the
// end) and the peak's overshoot over it (0 for a peak at or below it).
type aimdStep struct {
	settled   time.Duration
	overshoot float64
}

// aimdStepClaims are the targets a capacity step's outcome must meet.
func aimdStepClaims(r aimdStep) []claim {
	return []claim{
		{r.settled >= 0 && r.settled <= 5*time.Second, "the limit within 10% of the new equilibrium in at most 5s of control time"},
		{r.overshoot <= 0.10, "at most 10% overshoot"},
	}
}

// aimdCapacityStep drives a Limiter with Tick on explicit time against a
// CPU-bound server whose utilization is the previous period's limit over its
// capacity: 100 periods at capacity from, then ticks periods at capacity to.
// It reports when the limit came to stay within 10% of the new equilibrium
// (90% of to), or that it did not by the end, and returns both with the
// overshoot.
func aimdCapacityStep(w io.Writer, from, to float64, ticks int) (aimdStep, error) {
	capacity := from
	var l *aimd.Limiter
	prev := 0.0
	sig := aimd.SignalFunc(func(time.Time) (float64, error) {
		load := math.Min(1, prev/capacity)
		prev = float64(l.Limit())
		return load, nil
	})
	l, err := aimd.New(aimd.Config{Signal: sig, Manual: true, Initial: 1, MemoryLimit: -1})
	if err != nil {
		return aimdStep{}, err
	}
	prev = 1
	now := time.Unix(0, 0)
	const period = 100 * time.Millisecond
	eq := 0.9 * to
	settled, peak := time.Duration(-1), 0.0
	for i := 1; i <= 100+ticks; i++ {
		if i == 101 {
			capacity = to
		}
		now = now.Add(period)
		if err := l.Tick(now); err != nil {
			return aimdStep{}, err
		}
		lim := float64(l.Limit())
		if i > 100 {
			peak = math.Max(peak, lim)
			if math.Abs(lim-eq) > eq/10 {
				settled = -1
			} else if settled < 0 {
				settled = time.Duration(i-100) * period
			}
		}
	}
	verdict := fmt.Sprintf("within 10%% after %v of control time", settled)
	if settled < 0 {
		verdict = fmt.Sprintf("not within 10%% by the end of %v of control time", time.Duration(ticks)*period)
	}
	r := aimdStep{settled: settled}
	over := "no overshoot" // a peak below the equilibrium is no negative overshoot
	if peak > eq {
		r.overshoot = peak/eq - 1
		over = fmt.Sprintf("%.1f%% overshoot", 100*r.overshoot)
	}
	fmt.Fprintf(w, "   capacity %.0f -> %.0f (equilibrium limit %.0f -> %.0f): %s, peak %.0f (%s), final %d\n",
		from, to, 0.9*from, eq, verdict, peak, over, l.Limit())
	return r, nil
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
	heaps := []uint64{500, 920, 850, 790, 850}
	verdicts := make([]string, len(heaps))
	now := time.Unix(0, 0)
	for i, h := range heaps {
		heap = h
		now = now.Add(100 * time.Millisecond)
		if err := l.Tick(now); err != nil {
			return err
		}
		done, err := l.TryAcquire()
		switch {
		case err == nil:
			verdicts[i] = "admit"
			done(true)
		case errors.Is(err, aimd.ErrMemory):
			verdicts[i] = "reject"
		default:
			verdicts[i] = err.Error()
		}
	}
	if err := verify(aimdMemoryGuardClaims(heaps, verdicts)...); err != nil {
		return err
	}
	fmt.Fprint(w, "   memory guard (limit 1000 B, trip 90%, reset 80%): heap ")
	for i, h := range heaps {
		fmt.Fprintf(w, "%d:%s ", h, verdicts[i])
	}
	fmt.Fprintln(w)
	return nil
}

// aimdMemoryGuardClaims is what the memory-guard line and the section's
// title state: with a limit of 1000 B the guard trips above 900 B and
// rejects with ErrMemory until the heap falls below 800 B (hysteresis), so
// heaps 500, 920, 850, 790, 850 read admit, reject, reject, admit, admit.
func aimdMemoryGuardClaims(heaps []uint64, verdicts []string) []claim {
	want := []string{"admit", "reject", "reject", "admit", "admit"}
	seq := func(vs []string) string {
		var b strings.Builder
		for i, v := range vs {
			if i < len(heaps) {
				fmt.Fprintf(&b, "%d:", heaps[i])
			}
			b.WriteString(v + " ")
		}
		return strings.TrimSpace(b.String())
	}
	return []claim{{slices.Equal(verdicts, want),
		fmt.Sprintf("memory guard with hysteresis reads %s, not %s", seq(want), seq(verdicts))}}
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
