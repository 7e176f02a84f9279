package main

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestFractionalTargetPrintedAsSolved: -target 19.5 printed "=> 20x at a
// density of 266": the density solved for 19.5x, the target rounded to a
// whole number (20x is at a density near 258).
func TestFractionalTargetPrintedAsSolved(t *testing.T) {
	var out bytes.Buffer
	require.NoError(t, report(&out, articleFleet(), 19.5))
	assert.Contains(t, out.String(), "which shard density reproduces 19.5x?")
	assert.Contains(t, out.String(), "=> 19.5x at a density of 266 ")

	out.Reset()
	require.NoError(t, report(&out, articleFleet(), 19))
	assert.Contains(t, out.String(), "=> 19x at a density of 274 ", "a whole target prints as before")
}
