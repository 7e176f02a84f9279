package cache

import "testing"

// TestSweepsAmortized: a shard with many fills in flight (a GetMany or
// FillMany of thousands of missed keys, or a miss storm against a slow
// backend) must not sweep its fill records on every new fill: each sweep
// walks every record under the shard's lock, and one per new fill made n
// fills cost n^2/2 record visits. Sweeps happen as the records double.
func TestSweepsAmortized(t *testing.T) {
	c, err := New[int, int](Config[int]{Capacity: 100_000})
	if err != nil {
		t.Fatal(err)
	}
	const n = 4096
	target := c.hash(0) & (numShards - 1)
	visits := 0
	s := &c.shards[target]
	for k, started := 0, 0; started < n; k++ {
		if c.hash(k)&(numShards-1) != target {
			continue
		}
		before := s.sweeps
		c.startFill(k) // never ended: every record stays active
		if s.sweeps != before {
			visits += started // the sweep walked every record
		}
		started++
	}
	if got := len(s.fills); got != n {
		t.Fatalf("records: %d, want %d (active fills are never swept)", got, n)
	}
	// Doubling from sweepFills: 64 + 128 + ... + 2048 < 2n visits.
	if visits > 2*n {
		t.Fatalf("%d sweeps visited %d records for %d fills in flight, want at most %d", s.sweeps, visits, n, 2*n)
	}
}

// TestSweepShrinksFillsAfterBurst: a Go map keeps its peak memory, and a
// sweep ranges over all of it; once a sweep leaves a quarter of a burst's
// peak or less, the shard's records move to a new map. A fill still in flight
// keeps its record through the move: an invalidation after it must still make
// that fill lose.
func TestSweepShrinksFillsAfterBurst(t *testing.T) {
	c, err := New[int, int](Config[int]{Capacity: 100_000})
	if err != nil {
		t.Fatal(err)
	}
	target := c.hash(0) & (numShards - 1)
	s := &c.shards[target]
	next := 0
	key := func() int { // the next key of the target shard
		for c.hash(next)&(numShards-1) != target {
			next++
		}
		next++
		return next - 1
	}
	const burst = 4096
	kept := key()
	inFlight := c.startFill(kept)
	recs := make(map[int]fillRecord[int, int], burst)
	for range burst {
		k := key()
		recs[k] = c.startFill(k)
	}
	for _, r := range recs {
		c.endFill(r, 0, false, 0)
	}
	if s.fillsPeak < burst {
		t.Fatalf("peak %d after a burst of %d", s.fillsPeak, burst)
	}
	for before := s.sweeps; s.sweeps == before; {
		k := key()
		c.endFill(c.startFill(k), 0, false, 0)
	}
	if n := len(s.fills); s.fillsPeak > int32(n) || n > 2 {
		t.Fatalf("after the sweep: %d records, peak %d; want the in-flight fill's record and at most one more, in a new map", n, s.fillsPeak)
	}
	c.Delete(kept) // invalidates the fill in flight
	c.endFill(inFlight, 7, true, 0)
	if v, ok := c.TryGet(kept); ok {
		t.Fatalf("a fill invalidated while in flight stored %d", v)
	}
	if got := c.Stats().DroppedFills; got != 1 {
		t.Fatalf("DroppedFills = %d, want 1", got)
	}
}
