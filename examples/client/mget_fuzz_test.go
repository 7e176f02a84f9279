package client

import (
	"errors"
	"testing"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"
)

// FuzzFillMGet feeds fillMGet the element mixes go-redis can hand over for an
// MGET reply (values, nulls, error elements, integers, nested arrays), of any
// length: it never panics, takes a reply as values only when it holds one
// value or null per key, and otherwise leaves the results untouched and
// returns the error element or ErrBadReply.
func FuzzFillMGet(f *testing.F) {
	f.Add([]byte{2, 0, 1}, uint8(2))
	f.Add([]byte{2, 1, 0, 2}, uint8(3))
	f.Add([]byte{3, 4}, uint8(1))
	f.Add([]byte{}, uint8(0))
	f.Fuzz(func(t *testing.T, kinds []byte, keys uint8) {
		vals := make([]any, len(kinds))
		for i, k := range kinds {
			switch k % 5 {
			case 0:
				vals[i] = nil
			case 1:
				vals[i] = string(kinds[i:])
			case 2:
				vals[i] = replyErr("OVERLOADED shed")
			case 3:
				vals[i] = int64(k)
			case 4:
				vals[i] = []any{}
			}
		}
		n := int(keys % 8)
		idx := make([]int, n)
		for i := range idx {
			idx[i] = n - 1 - i // results land out of order, as MGet's groups do
		}
		out := make([]Value, n)
		err := fillMGet(out, idx, vals)

		var bad error // what a naive reading expects
		if len(vals) != n {
			bad = ErrBadReply
		}
		for _, v := range vals {
			if bad != nil {
				break
			}
			switch v := v.(type) {
			case nil, string:
			case error:
				bad = v
			default:
				bad = ErrBadReply
			}
		}
		if bad != nil {
			require.ErrorIs(t, err, bad)
			require.Equal(t, make([]Value, n), out, "results of a rejected reply were kept")
			var re redis.Error
			require.Equal(t, !errors.Is(bad, ErrBadReply), errors.As(err, &re))
			return
		}
		require.NoError(t, err)
		for j, v := range vals {
			s, ok := v.(string)
			require.Equal(t, Value{Value: s, Found: ok}, out[idx[j]])
		}
	})
}
