package hashring_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/hashring"
)

// fixedLoads is a LoadReporter with set loads.
type fixedLoads map[string]int64

func (f fixedLoads) Load(id string) int64 { return f[id] }
func (f fixedLoads) Total() int64 {
	var t int64
	for _, v := range f {
		t += v
	}
	return t
}

// With an owner at its bound, LookupBounded takes the next node of the key's
// probe sequence, LookupN's, when the probes reach one under its bound (with
// equal weights they do); past its probes (a full owner among much lighter
// nodes) it scans the members instead, and its choice need not be LookupN's
// second replica, but is under its bound.
func TestLookupBoundedSpillOrder(t *testing.T) {
	r, err := hashring.New(hashring.Config{}, equalNodes(4))
	require.NoError(t, err)
	for i := range 500 {
		key := fmt.Sprint("k", i)
		order, err := r.LookupN(key, 2)
		require.NoError(t, err)
		lr := fixedLoads{order[0]: 10} // over its bound at c = 1: ceil(11/4) = 3
		got, err := r.LookupBounded(key, 1, lr)
		require.NoError(t, err)
		require.Equal(t, order[1], got, key)
	}

	r, err = hashring.New(hashring.Config{}, []hashring.Node{
		{ID: "big", Weight: 1000}, {ID: "s1", Weight: 1}, {ID: "s2", Weight: 1}, {ID: "s3", Weight: 1},
	})
	require.NoError(t, err)
	lr := fixedLoads{"big": 1000} // over its bound at c = 1: ceil(1001 x 1000/1003) = 999
	differ := 0
	for i := range 500 {
		key := fmt.Sprint("k", i)
		order, err := r.LookupN(key, 4)
		require.NoError(t, err)
		got, err := r.LookupBounded(key, 1, lr)
		require.NoError(t, err)
		require.NotEqual(t, "big", got, key)
		if order[0] == "big" && got != order[1] {
			differ++
		}
	}
	assert.Positive(t, differ, "the scan past the probes is not LookupN's order (documented)")
}

// laggingTotal reports no load on any node and a total of -1, as an adapter whose
// total counter is updated after its per-node counters can for a moment.
type laggingTotal struct{}

func (laggingTotal) Load(string) int64 { return 0 }
func (laggingTotal) Total() int64      { return -1 }

// TestLookupBoundedNegativeTotal: a total below 0 gave every node a bound of 0, so
// no node fit and every key went to the first member in ID order. With nothing in
// flight each key goes to its owner.
func TestLookupBoundedNegativeTotal(t *testing.T) {
	r, err := hashring.New(hashring.Config{}, coreNodes(8, 2))
	require.NoError(t, err)
	for i := range 100 {
		key := fmt.Sprint("k", i)
		want, err := r.Lookup(key)
		require.NoError(t, err)
		got, err := r.LookupBounded(key, 1.25, laggingTotal{})
		require.NoError(t, err)
		require.Equal(t, want, got, key)
	}
}
