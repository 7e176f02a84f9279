package main

import (
	"sync"
	"sync/atomic"
	"time"
)

// workers runs the commands of a pipeline (and the per-shard parts of a
// multi-key command) concurrently on goroutines that outlive one task. A new
// goroutine per command grew its stack through the whole request path every
// time: runtime.newstack/copystack took a sixth of the gateway's CPU at
// pipeline 16 in a profile. A worker idle for workerIdle exits; Close stops
// them all.
type workers struct {
	work chan func() // unbuffered: a send succeeds only if a worker is idle
	quit chan struct{}
	wg   sync.WaitGroup

	started atomic.Int64 // worker goroutines started so far
}

// workerIdle is how long an idle worker waits for a task before it exits.
const workerIdle = time.Second

func newWorkers() *workers {
	return &workers{work: make(chan func()), quit: make(chan struct{})}
}

// goDo runs f on an idle worker, or on a new one; done is called when f
// returns.
func (w *workers) goDo(wg *sync.WaitGroup, f func()) {
	wg.Add(1)
	task := func() {
		defer wg.Done()
		f()
	}
	select {
	case w.work <- task:
		return
	default:
	}
	w.wg.Add(1)
	w.started.Add(1)
	go w.loop(task)
}

func (w *workers) loop(f func()) {
	defer w.wg.Done()
	t := time.NewTimer(workerIdle)
	defer t.Stop()
	for {
		f()
		t.Reset(workerIdle)
		select {
		case f = <-w.work:
		case <-t.C:
			return
		case <-w.quit:
			return
		}
	}
}

// close stops the idle workers and waits for every worker to exit; tasks
// still running finish first. No task may be started after close.
func (w *workers) close() {
	close(w.quit)
	w.wg.Wait()
}
