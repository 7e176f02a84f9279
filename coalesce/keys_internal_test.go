package coalesce

import (
	"context"
	"fmt"
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

// TestUnhashableKeyPanicReleasesLock: with an interface key type, a key whose
// dynamic type cannot be hashed (a slice) makes the key map panic, as a map
// would. The panic happened with the group's mutex held and never released it,
// so once a caller recovered (as net/http does for a handler), every later call
// on the Group blocked forever.
func TestUnhashableKeyPanicReleasesLock(t *testing.T) {
	fn := func(context.Context) (int, error) { return 1, nil }
	fnWith := func(context.Context, int) (int, error) { return 1, nil }
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	bad := any([]byte("k"))
	ops := []struct {
		name string
		op   func(g *Group[any, int])
	}{
		{"Do", func(g *Group[any, int]) { g.Do(context.Background(), bad, fn) }},
		{"Do cancellable", func(g *Group[any, int]) { g.Do(ctx, bad, fn) }},
		{"DoWith", func(g *Group[any, int]) { DoWith(g, context.Background(), bad, 0, fnWith) }},
		{"DoChan", func(g *Group[any, int]) { g.DoChan(context.Background(), bad, fn) }},
		{"DoChan cancellable", func(g *Group[any, int]) { g.DoChan(ctx, bad, fn) }},
		{"Forget", func(g *Group[any, int]) { g.Forget(bad) }},
		{"Pending", func(g *Group[any, int]) { g.Pending(bad) }},
	}
	for _, tt := range ops {
		for _, used := range []bool{false, true} { // a nil key map, then a made one
			t.Run(fmt.Sprintf("%s used=%v", tt.name, used), func(t *testing.T) {
				var g Group[any, int]
				if used {
					g.Do(context.Background(), "warm", fn)
				}
				panicked := func() (p bool) {
					defer func() { p = recover() != nil }()
					tt.op(&g)
					return false
				}()
				if !panicked {
					t.Fatal("an unhashable key did not panic")
				}
				if !g.mu.TryLock() {
					t.Fatal("the group's mutex is still held after the panic: every later call would block")
				}
				g.mu.Unlock()
				if v, err := g.Do(ctx, "k", fn); v != 1 || err != nil {
					t.Errorf("Do after the panic = %v, %v", v, err)
				}
			})
		}
	}
}
