package hashring_test

import (
	"errors"
	"math"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/hashring"
)

// TestWeightSumOverflowNamesHeaviest: when the weights sum to infinity, the
// error names the node whose weight caused it (the heaviest), not whichever
// node sorts last.
func TestWeightSumOverflowNamesHeaviest(t *testing.T) {
	r, err := hashring.New(hashring.Config{}, []hashring.Node{{ID: "a", Weight: 1}, {ID: "b", Weight: math.MaxFloat64 / 2}, {ID: "z", Weight: 1}})
	require.NoError(t, err)
	_, err = r.Reweight("a", math.MaxFloat64)
	require.ErrorIs(t, err, hashring.ErrBadWeight)
	var ne *hashring.NodeError
	require.True(t, errors.As(err, &ne))
	require.Equal(t, "a", ne.ID)
	require.Equal(t, math.MaxFloat64, ne.Weight)

	_, err = hashring.New(hashring.Config{}, []hashring.Node{{ID: "m", Weight: math.MaxFloat64}, {ID: "b", Weight: math.MaxFloat64 / 2}, {ID: "y", Weight: 3}})
	require.True(t, errors.As(err, &ne))
	require.Equal(t, "m", ne.ID)
}
