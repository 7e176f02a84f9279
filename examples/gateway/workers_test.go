package main

import (
	"sync"
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
		var wg sync.WaitGroup
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
