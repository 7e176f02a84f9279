package main

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestAIMDSettleReport: a limit that never came within 10% of the new
// equilibrium was reported as "within 10% after -1ns". A step the limiter
// cannot follow in the ticks given (a hundredfold capacity in 5 ticks) now
// says it did not settle, and its peak below the equilibrium is no negative
// overshoot; the tour's own step still settles. Found by a review.
func TestAIMDSettleReport(t *testing.T) {
	var out bytes.Buffer
	require.NoError(t, aimdCapacityStep(&out, 100, 10_000, 5))
	assert.Contains(t, out.String(), "not within 10% by the end of 500ms of control time")
	assert.NotContains(t, out.String(), "-1ns")
	assert.Contains(t, out.String(), "(no overshoot)", "a peak below the equilibrium")

	out.Reset()
	require.NoError(t, aimdCapacityDoubles(&out))
	assert.Contains(t, out.String(), "capacity 100 -> 200 (equilibrium limit 90 -> 180): within 10% after ")
	assert.NotContains(t, out.String(), "not within")
}
