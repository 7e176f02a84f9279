package cache

import (
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestIndexAheadOfCapacity checks how far the index runs ahead of the
// capacity while a goroutine holds the policy lock (see Eviction in the
// package doc): by the deferred nodes, at most addLen per stripe, and by one
// entry for each writer that found its stripe's buffer full and waits for
// the lock, however many writers that is.
func TestIndexAheadOfCapacity(t *testing.T) {
	const capacity = 4
	c, err := New[int, int](Config[int]{Capacity: capacity})
	require.NoError(t, err)
	// Twice as many writers as the stripes defer, however many stripes
	// GOMAXPROCS gave the cache (16 to 64): a fixed 300 was fewer than the
	// 512 that 64 stripes defer, and the test failed at GOMAXPROCS 8 and up.
	writers := 2 * addLen * len(c.stripes)
	c.mu.Lock() // a holder of the policy lock, descheduled
	var wg sync.WaitGroup
	for k := range writers {
		wg.Go(func() { c.Set(k, k) })
	}
	// A writer stores its entry before it admits it: wait until every
	// writer has, deferring its node or waiting for the lock. The wait is
	// bounded: a writer that never stores its entry fails the test here
	// rather than hanging until go test's timeout.
	for deadline := time.Now().Add(10 * time.Second); indexed(c) < writers; {
		if time.Now().After(deadline) {
			n := indexed(c)
			c.unlockPolicy() // let the writers end before the test does
			wg.Wait()
			require.FailNow(t, "the writers never all stored their entries", "%d of %d indexed after 10 s", n, writers)
		}
		runtime.Gosched()
	}
	deferred := int(c.deferred.Load())
	assert.LessOrEqual(t, deferred, addLen*len(c.stripes), "at most addLen deferred nodes per stripe")
	assert.Greater(t, indexed(c)-capacity, addLen*len(c.stripes),
		"the index holds every waiting writer's entry too: more than addLen per stripe over the capacity")
	c.unlockPolicy()
	wg.Wait()
	assert.Equal(t, capacity, c.Len())
	assert.Equal(t, capacity, indexed(c), "once the lock is free, the index is back within the capacity")
}
