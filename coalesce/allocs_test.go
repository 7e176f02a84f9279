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
