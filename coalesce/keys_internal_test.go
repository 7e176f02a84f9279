package coalesce

import (
	"context"
	"math"
	"testing"
)

// TestNaNKeyLeavesNoEntry: a key that is not equal to itself (a float NaN, or a
// struct or interface holding one) can never be found in the key map again, so
// the entry an execution made for it was never deleted: every call with such a
// key, which request input can produce, kept its call and its value in the map
// for the life of the Group. Such keys cannot coalesce (no caller's key equals
// another's); their executions must still leave nothing behind.
func TestNaNKeyLeavesNoEntry(t *testing.T) {
	type point struct{ lat, lon float64 }
	fn := func(context.Context) (int, error) { return 1, nil }

	var g Group[point, int]
	key := point{math.NaN(), 0}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	for range 10 {
		if v, err := g.Do(context.Background(), key, fn); v != 1 || err != nil {
			t.Fatalf("Do inline = %v, %v", v, err)
		}
		if v, err := g.Do(ctx, key, fn); v != 1 || err != nil {
			t.Fatalf("Do on a goroutine = %v, %v", v, err)
		}
		if r := <-g.DoChan(ctx, key, fn); r.Val != 1 || r.Err != nil {
			t.Fatalf("DoChan = %+v", r)
		}
	}
	g.Forget(key)
	g.mu.Lock()
	n := len(g.m)
	g.mu.Unlock()
	if n != 0 {
		t.Errorf("%d map entries left after every NaN-keyed execution finished, want 0", n)
	}
	if s := g.Stats(); s.Executions != 30 || s.InFlight != 0 || s.Forgets != 0 {
		t.Errorf("Stats = %+v, want 30 executions, none in flight, no forget", s)
	}
}
