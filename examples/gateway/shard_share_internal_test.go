package main

import (
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
)

// TestShardShareNeverOvercounts: a batch refused for its shard's share must
// not count in the shard's flights even for a moment. Counted, then taken
// back, it made the count read above the share meanwhile, and a batch of the
// same shard entering then was refused for a slot that was free.
func TestShardShareNeverOvercounts(t *testing.T) {
	if runtime.GOMAXPROCS(0) < 2 {
		t.Skip("needs two processors to race")
	}
	g := &Gateway{shardFlights: make([]atomic.Int64, 2)}
	g.setShardShare(2) // one batch per shard
	var over atomic.Int64
	stop := make(chan struct{})
	var watch sync.WaitGroup
	watch.Go(func() {
		for {
			select {
			case <-stop:
				return
			default:
			}
			if n := g.shardFlights[0].Load(); n > g.shardShare.Load() {
				over.Add(1)
			}
		}
	})
	var wg sync.WaitGroup
	for range 2 {
		wg.Go(func() {
			for range 500_000 {
				if g.enterShard(&g.shardFlights[0]) {
					g.shardFlights[0].Add(-1)
				}
			}
		})
	}
	wg.Wait()
	close(stop)
	watch.Wait()
	if n := over.Load(); n > 0 {
		t.Fatalf("the shard's flights read above its share %d times", n)
	}
	if n := g.shardFlights[0].Load(); n != 0 {
		t.Fatalf("flights left counted: %d", n)
	}
}
