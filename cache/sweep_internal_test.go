package cache

import (
	"context"
	"errors"
	"strconv"
	"sync/atomic"
	"testing"
	"testing/synctest"
)

// TestSweepKeepsAPendingFlight: a shard's sweep of finished fill records must
// not Forget a newer flight of the same key whose fill has not registered yet
// (the gate stands for the scheduling gap between coalesce starting the flight
// and its fill taking the shard lock): the next reader of the key would start
// a second flight, and the herd would make two backend loads.
func TestSweepKeepsAPendingFlight(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c, err := New[string, int](Config[string]{Capacity: 10_000})
		if err != nil {
			t.Fatal(err)
		}
		ctx := context.Background()
		const k = "hot"
		shardOf := func(key string) uint64 { return c.hash(key) & (numShards - 1) }
		var same []string
		for i := 0; len(same) < sweepFills; i++ {
			if key := "k" + strconv.Itoa(i); shardOf(key) == shardOf(k) {
				same = append(same, key)
			}
		}
		// k's record: a finished (failed) fill.
		if _, err := c.Get(ctx, k, func(context.Context) (int, error) { return 0, errors.New("blip") }); err == nil {
			t.Fatal("want the load error")
		}
		for _, key := range same[:sweepFills-1] {
			if _, err := c.Get(ctx, key, func(context.Context) (int, error) { return 1, nil }); err != nil {
				t.Fatal(err)
			}
		}
		var loads atomic.Int32
		release := make(chan struct{})
		load := func(context.Context) (int, error) { loads.Add(1); <-release; return 42, nil }
		gate := make(chan struct{})
		first := c.flights.DoChan(ctx, k, func(ctx context.Context) (loaded[int], error) {
			<-gate
			return c.fill(ctx, k, true, load)
		})
		// This fill finds 64 records in the shard and sweeps the finished ones.
		if _, err := c.Get(ctx, same[sweepFills-1], func(context.Context) (int, error) { return 1, nil }); err != nil {
			t.Fatal(err)
		}
		close(gate)
		synctest.Wait() // the first load runs, blocked on release
		herd := make(chan error, 1)
		go func() { _, err := c.Get(ctx, k, load); herd <- err }()
		synctest.Wait() // the herd's reader joined the flight, or loads again
		close(release)
		if r := <-first; r.Err != nil {
			t.Fatal(r.Err)
		}
		if err := <-herd; err != nil {
			t.Fatal(err)
		}
		if n := loads.Load(); n != 1 {
			t.Fatalf("one key, one herd: %d backend loads, want 1 (flights %+v)", n, c.flights.Stats())
		}
	})
}
