//go:debug panicnil=1

// Package panicniltest runs batcher under the panicnil=1 setting. The
// //go:debug line applies to its whole test binary, so it has a directory
// of its own: batcher's own tests keep the default setting
// (TestPanicNilDefaultSetting).
package panicniltest

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/batcher"
)

// TestPanicNilFailsBatch: with the panicnil=1 setting (kept by programs that
// declare an old Go version, or set with //go:debug or GODEBUG, as this file
// does for the package's tests), panic(nil) makes recover return nil. The
// flush func's and Config.Key's recovers took nil for "no panic": a flush that
// panicked with nil was a success, every item getting the zero Resp and a nil
// error; a Key that did sent the batch uncompacted. Both now fail the batch
// with a *PanicError, as any other panic does.
func TestPanicNilFailsBatch(t *testing.T) {
	for _, tt := range []struct {
		name string
		cfg  batcher.Config[int]
		n    int
	}{
		{"flush", batcher.Config[int]{MaxItems: 1}, 1},
		{"key", batcher.Config[int]{MaxItems: 2, Key: func(int) (string, bool) { panic(nil) }}, 2},
	} {
		t.Run(tt.name, func(t *testing.T) {
			sent := 0
			b, err := batcher.New(tt.cfg, func(_ context.Context, _ int, reqs []int, out []batcher.Result[int]) error {
				sent += len(reqs)
				if tt.name == "flush" {
					panic(nil)
				}
				for i := range out {
					out[i].Resp = 1
				}
				return nil
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
				assert.Nil(t, pe.Value)
			}
			if tt.name == "key" {
				assert.Zero(t, sent, "a batch whose Key panicked is not sent")
			}
			assert.Equal(t, uint64(1), b.Stats().FlushErrors)
		})
	}
}
