package batcher_test

import (
	"context"
	"runtime"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/batcher"
)

// goexitingFlush is a flush func that calls runtime.Goexit (as t.FailNow does).
func goexitingFlush(context.Context, int, []int, []batcher.Result[int]) error {
	runtime.Goexit()
	return nil
}

// goexitingKey is a Config.Key that calls runtime.Goexit.
func goexitingKey(int) (string, bool) {
	runtime.Goexit()
	return "", false
}

// TestGoexitErrorHasStack: the *PanicError that items get when the flush func
// (or Config.Key) calls runtime.Goexit carries the stack of the goroutine
// running it, as one for a panic does. It had no stack at all, so nothing in
// the error located the call.
func TestGoexitErrorHasStack(t *testing.T) {
	for _, tt := range []struct {
		name string
		cfg  batcher.Config[int]
		want string
	}{
		{"flush", batcher.Config[int]{MaxItems: 1}, "goexitingFlush"},
		{"key", batcher.Config[int]{MaxItems: 2, Key: goexitingKey}, "goexitingKey"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			b, err := batcher.New(tt.cfg, goexitingFlush)
			require.NoError(t, err)
			defer b.Close()
			ps := []batcher.Pending[int, int, int]{b.Start(t.Context(), 0, 1)}
			if tt.cfg.MaxItems == 2 {
				ps = append(ps, b.Start(t.Context(), 0, 2))
			}
			for _, p := range ps {
				_, err := p.Wait()
				var pe *batcher.PanicError
				require.ErrorAs(t, err, &pe)
				assert.Contains(t, string(pe.Stack), tt.want)
				assert.Contains(t, pe.Error(), tt.want)
			}
		})
	}
}
