package main

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestPlainPartDedup: a part finds its GETs by a scan up to smallPart ops and
// by its index after, with the same answers either way; SETs are never
// matched, and a reused part starts empty.
func TestPlainPartDedup(t *testing.T) {
	sp := &pipeScratch{}
	for _, n := range []int{3, smallPart, smallPart + 1, 40, 2} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			p := sp.plainParts(1, n)[0]
			require.Empty(t, p.ops)
			_, found := p.getIndex("k0")
			require.False(t, found, "a reused part starts empty")
			p.ops = append(p.ops, op{kind: opSet, key: "set"})
			for i := range n {
				key := fmt.Sprintf("k%d", i)
				_, dup := p.getIndex(key)
				require.False(t, dup)
				p.ops = append(p.ops, op{kind: opGet, key: key})
				p.addGet(key, len(p.ops)-1)
			}
			for i := range n {
				pos, dup := p.getIndex(fmt.Sprintf("k%d", i))
				require.True(t, dup)
				assert.Equal(t, i+1, pos)
			}
			_, dup := p.getIndex("set")
			assert.False(t, dup, "a SET is not a GET to share")
			assert.Equal(t, n+1 > smallPart, p.indexed)
		})
	}
}

// TestStringBytes: a value keeps its bytes, and an empty one stays non-nil
// (a nil value is replied as a missing key).
func TestStringBytes(t *testing.T) {
	for _, s := range []string{"", "v", string(make([]byte, 100))} {
		b := stringBytes(s)
		require.NotNil(t, b)
		assert.Equal(t, s, string(b))
	}
	assert.Equal(t, "key", argString([]byte("key")))
}
