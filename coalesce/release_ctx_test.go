package coalesce_test

import (
	"context"
	"testing"
	"testing/synctest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/coalesce"
)

// TestFnContextReleasedAfterReturn pins "once fn has returned, the group
// releases that context (cancels it)" for Do and DoChan callers whose ctx can be
// cancelled, so that fn runs on a detached context of its own: the caller got
// fn's result, its own ctx is still live, and fn's context is done.
func TestFnContextReleasedAfterReturn(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var g coalesce.Group[string, int]
		ctx, cancel := cancellable()
		defer cancel()
		var fnCtx context.Context
		v, err := g.Do(ctx, "k", func(c context.Context) (int, error) {
			fnCtx = c
			return 1, nil
		})
		require.NoError(t, err)
		require.Equal(t, 1, v)
		synctest.Wait() // finish wakes the caller before it releases the context
		assert.ErrorIs(t, fnCtx.Err(), context.Canceled, "Do: fn's context outlived fn")

		var chanCtx context.Context
		r := <-g.DoChan(ctx, "k", func(c context.Context) (int, error) {
			chanCtx = c
			return 2, nil
		})
		require.NoError(t, r.Err)
		require.Equal(t, 2, r.Val)
		synctest.Wait()
		assert.ErrorIs(t, chanCtx.Err(), context.Canceled, "DoChan: fn's context outlived fn")
		assert.NoError(t, ctx.Err(), "the caller's own context is not touched")
	})
}
