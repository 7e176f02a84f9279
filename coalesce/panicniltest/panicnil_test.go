//go:debug panicnil=1

// Package panicniltest runs coalesce under the panicnil=1 setting. The
// //go:debug line applies to its whole test binary, so it has a directory
// of its own: coalesce's own tests keep the default setting.
package panicniltest

import (
	"context"
	"runtime"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/coalesce"
)

// TestPanicNilUnderSetting: with the panicnil=1 setting (kept by programs that
// declare an old Go version, or set with //go:debug or GODEBUG, as this file
// does for the package's tests), panic(nil) makes recover return nil. execute
// took a nil recover for a Goexit: the waiters of a fn that panicked with nil
// got ErrGoexit, and an inline Do returned that. It is a panic, and every
// waiter now gets a *PanicError with a nil Value and Goexit unset.
// (TestPanicNil checks panic(nil) under the default setting.)
func TestPanicNilUnderSetting(t *testing.T) {
	for _, tt := range []struct {
		name string
		ctx  func(t *testing.T) context.Context
	}{
		{"inline", func(*testing.T) context.Context { return context.Background() }},
		{"goroutine", func(t *testing.T) context.Context { return t.Context() }},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var g coalesce.Group[int, int]
			_, err := g.Do(tt.ctx(t), 1, func(context.Context) (int, error) { panic(nil) })
			var pe *coalesce.PanicError
			require.ErrorAs(t, err, &pe)
			assert.False(t, pe.Goexit)
			assert.Nil(t, pe.Value)
			assert.NotErrorIs(t, err, coalesce.ErrGoexit)
			assert.NotEmpty(t, pe.Stack)
			assert.EqualValues(t, 1, g.Stats().Panics)
		})
	}
}

// TestGoexitUnderSetting: under the same setting a fn that calls
// runtime.Goexit is still told from a panic: its waiter gets ErrGoexit.
func TestGoexitUnderSetting(t *testing.T) {
	var g coalesce.Group[int, int]
	_, err := g.Do(t.Context(), 1, func(context.Context) (int, error) { runtime.Goexit(); return 0, nil })
	require.ErrorIs(t, err, coalesce.ErrGoexit)
	assert.EqualValues(t, 1, g.Stats().Panics)
}
