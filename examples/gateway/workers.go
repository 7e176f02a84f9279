package main

import (
	"fmt"
	"runtime/debug"
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

// taskGroup waits for the tasks one goroutine hands to workers. A task that
// panics does not take the process down from a worker's goroutine: the panic
// is kept and raised again by Wait on the goroutine that handed the tasks
// over, the connection's, whose recover closes only that connection.
type taskGroup struct {
	wg       sync.WaitGroup
	mu       sync.Mutex
	panicked *taskPanic // the first task's panic, or nil
}

// taskPanic is a panic of a task, with the worker's stack.
type taskPanic struct {
	value any
	stack []byte
}

func (p *taskPanic) String() string {
	return fmt.Sprintf("%v (on a worker)\n%s", p.value, p.stack)
}

// Wait waits for every task, then panics with the first task's panic, if any.
func (g *taskGroup) Wait() {
	g.wg.Wait()
	if g.panicked != nil {
		panic(g.panicked)
	}
}

// goDo runs f on an idle worker, or on a new one; g.Wait returns after f
// returns.
func (w *workers) goDo(g *taskGroup, f func()) {
	g.wg.Add(1)
	task := func() {
		defer g.wg.Done()
		defer func() {
			if r := recover(); r != nil {
				g.mu.Lock()
				if g.panicked == nil {
					g.panicked = &taskPanic{value: r, stack: debug.Stack()}
				}
				g.mu.Unlock()
			}
		}()
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
