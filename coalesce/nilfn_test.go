package coalesce_test

import (
	"context"
	"testing"
	"testing/synctest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/coalesce"
)

// nilFnCalls calls each entry point of g for key "k" with a nil fn.
func nilFnCalls(g *coalesce.Group[string, int]) map[string]func(ctx context.Context) {
	return map[string]func(ctx context.Context){
		"Do":     func(ctx context.Context) { _, _ = g.Do(ctx, "k", nil) },
		"DoWith": func(ctx context.Context) { _, _ = coalesce.DoWith[string, int, int](g, ctx, "k", 1, nil) },
		"DoChan": func(ctx context.Context) { <-g.DoChan(ctx, "k", nil) },
	}
}

// panicOf runs call(ctx) on a goroutine of the bubble and returns what it
// panicked with, or nil. A call still blocked once the bubble is idle is
// released by cancelling its ctx.
func panicOf(ctx context.Context, call func(context.Context)) (v any) {
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		defer func() { v = recover() }()
		call(ctx)
	}()
	synctest.Wait()
	cancel()
	<-done
	return v
}

// TestNilFnPanicsAtTheCall: Do, DoWith and DoChan took a nil fn; the call
// that started the execution then panicked inside it, and every caller joined
// to that key, including those that passed a valid fn, got a *PanicError for
// another caller's mistake (and a nil-fn call that joined an execution went
// unnoticed). A nil fn is a programming error: it panics at the call that
// passed it, before it joins or starts anything, so the other callers of the
// key are not affected. Found by a review.
func TestNilFnPanicsAtTheCall(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var g coalesce.Group[string, int]
		const msg = "coalesce: nil fn"
		for name, call := range nilFnCalls(&g) {
			assert.Equal(t, msg, panicOf(context.Background(), call), name)
		}
		assert.Zero(t, g.Stats(), "a nil fn neither starts nor joins an execution")

		// While a valid execution of the key is in flight, a nil fn still
		// panics at its call, and the valid callers get their value.
		release := make(chan struct{})
		ch := g.DoChan(context.Background(), "k", func(context.Context) (int, error) {
			<-release
			return 7, nil
		})
		for name, call := range nilFnCalls(&g) {
			assert.Equal(t, msg, panicOf(context.Background(), call), name+" while in flight")
		}
		close(release)
		res := <-ch
		require.NoError(t, res.Err)
		assert.Equal(t, 7, res.Val)
		assert.Equal(t, coalesce.Stats{Calls: 1, Executions: 1}, g.Stats())
	})
}
