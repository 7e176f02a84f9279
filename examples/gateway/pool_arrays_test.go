package main

import (
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestPooledArraysClearedOnReturn: the arrays a batch's ops and keys are
// gathered in go back to their pools emptied and cleared, so that a pooled
// array holds no command's key or value (a pipeline's read buffer) until it
// is used again, and come out empty with the room asked for.
func TestPooledArraysClearedOnReturn(t *testing.T) {
	for _, n := range []int{1, 16, maxPooledOps} {
		pool := &sync.Pool{New: func() any { return new([]op) }}
		p := fromPool[op](pool, n)
		require.Empty(t, *p)
		require.GreaterOrEqual(t, cap(*p), n)
		for i := range n {
			*p = append(*p, op{kind: opSet, key: "k", value: []byte{byte(i)}})
		}
		all := (*p)[:cap(*p)]
		toPool(pool, p)
		require.Empty(t, *p)
		for i, o := range all[:n] {
			require.Zero(t, o, "op %d of %d kept after its return", i, n)
		}
	}
	keys := &sync.Pool{New: func() any { return new([]string) }}
	k := fromPool[string](keys, 3)
	*k = append((*k)[:0], "a", "b", "c")
	all := (*k)[:3]
	toPool(keys, k)
	require.Equal(t, []string{"", "", ""}, all)
}
