package main

import (
	"errors"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
)

// TestWorkersReuseAndExit: tasks run concurrently, an idle worker takes the
// next task instead of a new goroutine being started, idle workers exit after
// workerIdle, and close leaves no goroutine (synctest fails otherwise).
func TestWorkersReuseAndExit(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		w := newWorkers()
		var ran atomic.Int64
		var wg taskGroup
		gate := make(chan struct{})
		for range 8 { // 8 tasks at once: 8 workers
			w.goDo(&wg, func() { <-gate; ran.Add(1) })
		}
		close(gate)
		wg.Wait()
		synctest.Wait() // the 8 workers are idle, waiting for work
		for range 100 { // one at a time: always an idle worker to take it
			w.goDo(&wg, func() { ran.Add(1) })
			wg.Wait()
		}
		assert.Equal(t, int64(108), ran.Load())
		assert.Equal(t, int64(8), w.started.Load(), "idle workers took the later tasks")
		time.Sleep(workerIdle + time.Millisecond)
		synctest.Wait()                    // idle workers have exited
		w.goDo(&wg, func() { ran.Add(1) }) // a new worker starts
		wg.Wait()
		w.close()
		assert.Equal(t, int64(109), ran.Load())
		assert.Equal(t, int64(9), w.started.Load())
	})
}

// TestWorkerPanicReachesTheCaller: a task that panics on a worker does not
// end the process; the other tasks finish, and Wait raises the panic on the
// goroutine that handed the tasks over (a connection's, whose recover
// closes only it), with the worker's stack.
func TestWorkerPanicReachesTheCaller(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		w := newWorkers()
		defer w.close()
		var wg taskGroup
		var ran atomic.Int64
		boom := errors.New("boom")
		w.goDo(&wg, func() { panic(boom) })
		w.goDo(&wg, func() { ran.Add(1) })
		var got any
		func() {
			defer func() { got = recover() }()
			wg.Wait()
		}()
		p, ok := got.(*taskPanic)
		if !ok {
			t.Fatalf("Wait raised %v, want a *taskPanic", got)
		}
		assert.Equal(t, boom, p.value)
		assert.Contains(t, string(p.stack), "TestWorkerPanicReachesTheCaller")
		assert.Equal(t, int64(1), ran.Load(), "the other task ran")
	})
}
