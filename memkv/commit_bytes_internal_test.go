package memkv

import (
	"math"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestCommitBytesSaturates: commitBytes summed the lengths in an int, and a
// request may repeat one slice by reference, at no cost in memory: on a
// 32-bit platform eight references to a 512 MiB value summed 4 GiB plus the
// keys, which wrapped to the bytes of the keys and passed the
// MaxCommitBytes check (the commit then copied each value). The sum now
// saturates at math.MaxInt. Run it where int has 32 bits with
// GOARCH=386 go test -run TestCommitBytesSaturates ./memkv/.
func TestCommitBytesSaturates(t *testing.T) {
	assert.Equal(t, math.MaxInt, addLen(math.MaxInt-3, 4))
	assert.Equal(t, math.MaxInt, addLen(math.MaxInt, 1))
	assert.Equal(t, 7, addLen(3, 4))
	t.Run("repeated references", func(t *testing.T) {
		if strconv.IntSize > 32 {
			t.Skip("lengths of real slices cannot wrap a 64-bit int")
		}
		big := make([]byte, 1<<29) // untouched: the runtime maps it zeroed
		req := &CommitRequest{}
		for range 8 {
			req.Sets = append(req.Sets, []byte("k"), big)
		}
		size := commitBytes(req) // 4 GiB + 8 wrapped to 8
		require.Equal(t, math.MaxInt, size)
		require.Greater(t, size, defaultMaxCommit)
	})
}
