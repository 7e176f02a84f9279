package txn_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/memkv"
)

// keysError is an engine error returned by value whose type is not
// comparable (it holds a slice), as an adapter's error naming the keys it
// failed on may be.
type keysError struct{ keys [][]byte }

func (e keysError) Error() string { return "engine: read failed" }

// TestReadErrorUncomparable: classifying a read's error compared it with
// its classification by ==, which panics when both hold the same
// uncomparable type: an engine's Get or Scan returning such an error by
// value crashed the caller instead of failing the read.
func TestReadErrorUncomparable(t *testing.T) {
	give := keysError{keys: [][]byte{b("k")}}
	eng := failingReads{Store: newStore(t, memkv.Config{}), err: give}
	tx := begin(t, eng, 0)
	require.NotPanics(t, func() {
		_, _, err := tx.Get(ctx, b("k"))
		require.Error(t, err)
		var ke keysError
		assert.ErrorAs(t, err, &ke)
		assert.Contains(t, err.Error(), "read")
	})
	require.NotPanics(t, func() {
		_, err := tx.GetRange(ctx, b("a"), b("z"), 0, false)
		require.Error(t, err)
		var ke keysError
		assert.ErrorAs(t, err, &ke)
	})
}
