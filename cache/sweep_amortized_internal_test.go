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
