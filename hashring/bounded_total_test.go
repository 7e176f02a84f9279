package hashring_test

import (
	"fmt"
	"math"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/hashring"
)

// saturatedTotal reports a total of the largest int64, as an adapter whose
// total counter saturates rather than wraps, and some load on one node.
type saturatedTotal struct{ busy string }

func (s saturatedTotal) Load(id string) int64 {
	if id == s.busy {
		return 5
	}
	return 0
}
func (saturatedTotal) Total() int64 { return math.MaxInt64 }

// TestLookupBoundedHugeTotal: Total+1 was taken in int64, so a total of the
// largest int64 wrapped to the smallest: every bound came out negative, no
// node fit, and the scan's "lowest load relative to its bound" then picked
// the most loaded node for every key. With a bound that large every node
// fits, so each key goes to its owner.
func TestLookupBoundedHugeTotal(t *testing.T) {
	r, err := hashring.New(hashring.Config{}, equalNodes(4))
	require.NoError(t, err)
	busy := r.Nodes()[0].ID
	for i := range 100 {
		key := fmt.Sprint("k", i)
		want, err := r.Lookup(key)
		require.NoError(t, err)
		got, err := r.LookupBounded(key, 1.25, saturatedTotal{busy: busy})
		require.NoError(t, err)
		require.Equal(t, want, got, key)
	}
}
