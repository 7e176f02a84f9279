package coalesce_test

import (
	"context"
	"encoding/binary"
	"runtime"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/tierkit/tierkit/coalesce"
)

// liveHeap returns the bytes of live heap objects after a full collection.
func liveHeap() int64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return int64(m.HeapAlloc)
}

// TestKeyMapShrinksAfterBurst: a burst of distinct keys in flight at once (a
// miss storm, a scan through the gateway: client input) grows the group's key
// map to the burst's size, and a Go map keeps the table of the most keys it
// held after they are deleted. The table stayed for the life of the Group,
// long after every execution of the burst had finished.
func TestKeyMapShrinksAfterBurst(t *testing.T) {
	type key [128]byte // a wide key, so that the table is what the heap measures
	const n = 4096
	var g coalesce.Group[key, int]
	var entered, finished sync.WaitGroup
	start, release, quit := make(chan struct{}), make(chan struct{}), make(chan struct{})
	fn := func(context.Context) (int, error) { entered.Done(); <-release; return 1, nil }
	// The callers exist before the measurement, and stay until after it, so that
	// the heap it compares holds the same goroutines.
	entered.Add(n)
	finished.Add(n)
	for i := range n {
		go func() {
			var k key
			binary.LittleEndian.PutUint32(k[:], uint32(i))
			<-start
			v, err := g.Do(context.Background(), k, fn) // fn runs on this goroutine
			assert.Equal(t, 1, v)
			assert.NoError(t, err)
			finished.Done()
			<-quit
		}()
	}
	defer close(quit)
	g.Do(context.Background(), key{}, func(context.Context) (int, error) { return 0, nil })
	before := liveHeap()
	close(start)
	entered.Wait() // every key of the burst is in flight
	close(release)
	finished.Wait()
	held := liveHeap() - before
	assert.Less(t, held, int64(64<<10), "%d KiB held by a group with nothing in flight after a burst of %d keys", held>>10, n)
	assert.Zero(t, g.Stats().InFlight)
	runtime.KeepAlive(&g)
}
