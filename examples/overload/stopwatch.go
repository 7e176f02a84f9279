package main

import "time"

// stopwatch measures the real time spent inside a policy's decisions, sampling
// one decision in 16 so that reading the clock does not dominate what it
// measures; the total is scaled back up.
type stopwatch struct {
	o     *outcome
	n     int64
	t0    time.Time
	timed bool
}

const sampleEvery = 16

func newStopwatch(o *outcome) *stopwatch { return &stopwatch{o: o} }

func (w *stopwatch) start() {
	w.n++
	w.o.Decisions++
	if w.timed = w.n%sampleEvery == 0; w.timed {
		w.t0 = time.Now()
	}
}

func (w *stopwatch) stop() {
	if w.timed {
		w.o.DecisionNanos += int64(time.Since(w.t0)) * sampleEvery
	}
}
