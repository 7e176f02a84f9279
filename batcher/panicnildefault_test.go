package batcher_test

import (
	"context"
	"runtime"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/batcher"
)

// TestPanicNilDefaultSetting: under the default setting (no panicnil=1),
// panic(nil) panics with a *runtime.PanicNilError, which every item of the
// batch gets as the Value of its *PanicError, and errors.As sees through to
// it. The package's tests must run under that default: a //go:debug line in
// any test file of the package would apply to the whole test binary (see
// the panicniltest directory for the panicnil=1 setting).
func TestPanicNilDefaultSetting(t *testing.T) {
	for _, tt := range []struct {
		name string
		cfg  batcher.Config[int]
		n    int
	}{
		{"flush", batcher.Config[int]{MaxItems: 1}, 1},
		{"key", batcher.Config[int]{MaxItems: 2, Key: func(int) (string, bool) { panic(nil) }}, 2},
	} {
		t.Run(tt.name, func(t *testing.T) {
			b, err := batcher.New(tt.cfg, func(_ context.Context, _ int, _ []int, _ []batcher.Result[int]) error {
				panic(nil)
			})
			require.NoError(t, err)
			defer b.Close()
			var ps []batcher.Pending[int, int, int]
			for i := range tt.n {
				ps = append(ps, b.Start(t.Context(), 0, i))
			}
			for _, p := range ps {
				_, err := p.Wait()
				var pe *batcher.PanicError
				require.ErrorAs(t, err, &pe)
				assert.IsType(t, (*runtime.PanicNilError)(nil), pe.Value)
				var pne *runtime.PanicNilError
				assert.ErrorAs(t, err, &pne)
			}
		})
	}
}
