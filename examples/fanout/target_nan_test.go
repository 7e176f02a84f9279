package main

import (
	"bytes"
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestSolveDensityRejectsNaNTarget: -target NaN printed "=> NaNx at a density
// of 0 shard replicas per host per regional tier (db fan-in 0)": every
// comparison with NaN is false, so the out-of-reach check passed and the
// bisection walked down to the bottom of the range, a solution invented for a
// target no density gives.
func TestSolveDensityRejectsNaNTarget(t *testing.T) {
	_, ok := solveDensity(articleFleet(), math.NaN(), 1e-3, 1e7)
	assert.False(t, ok, "a NaN target is out of reach")

	var out bytes.Buffer
	require.NoError(t, report(&out, articleFleet(), math.NaN()))
	assert.NotContains(t, out.String(), "at a density of")
	assert.Contains(t, out.String(), "is out of reach")
}
