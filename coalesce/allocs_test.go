package coalesce_test

import (
	"context"
	"testing"

	"github.com/tierkit/tierkit/coalesce"
)

// TestInlineExecutionAllocatesNothing holds the package doc to its word: an
// execution that ran inline (the caller's context cannot be cancelled) and that
// nobody joined allocates nothing, with Do and a static fn as with DoWith.
func TestInlineExecutionAllocatesNothing(t *testing.T) {
	var g coalesce.Group[string, int]
	ctx := context.Background()
	static := func(context.Context) (int, error) { return 1, nil }
	for _, tt := range []struct {
		name string
		call func()
	}{
		{"Do", func() { _, _ = g.Do(ctx, "k", static) }},
		{"DoWith", func() { _, _ = coalesce.DoWith(&g, ctx, "k", "k", keyLen) }},
	} {
		t.Run(tt.name, func(t *testing.T) {
			tt.call() // warm the group's free list
			if n := testing.AllocsPerRun(1000, tt.call); n != 0 {
				t.Errorf("%s: %v allocations per call, want 0", tt.name, n)
			}
		})
	}
}

// TestDoWithLeaderOnGoroutineAllocations pins what DoWith's doc says of a caller
// that starts an execution on a new goroutine (its ctx can be cancelled): it makes
// one allocation more than Do with a static fn (the func holding fn and arg), not
// one allocation in all; the execution itself allocates either way.
func TestDoWithLeaderOnGoroutineAllocations(t *testing.T) {
	var g coalesce.Group[string, int]
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	static := func(context.Context) (int, error) { return 1, nil }
	do := func() { _, _ = g.Do(ctx, "k", static) }
	doWith := func() { _, _ = coalesce.DoWith(&g, ctx, "k", "k", keyLen) }
	do()
	doWith()
	nDo, nDoWith := testing.AllocsPerRun(200, do), testing.AllocsPerRun(200, doWith)
	if nDoWith != nDo+1 {
		t.Errorf("DoWith leader on a goroutine: %v allocations per call, Do: %v; want exactly one more", nDoWith, nDo)
	}
	if nDo == 0 {
		t.Errorf("Do leader on a goroutine: 0 allocations per call; DoWith's doc says such an execution allocates")
	}
}
