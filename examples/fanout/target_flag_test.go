package main

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestBadTargetRefused: -target NaN, 0, a negative or an infinite target was
// accepted, and the report said "=> NaNx is out of reach for this fleet at
// any density", exiting 0, as if the fleet were the reason; no density gives
// such a reduction. They are refused as bad usage (exit 2), as a bad
// -density is. Found by a review.
func TestBadTargetRefused(t *testing.T) {
	for _, v := range []string{"NaN", "0", "-0", "-19", "+Inf", "-Inf"} {
		var errOut bytes.Buffer
		_, _, err := parseFlags([]string{"-target", v}, &errOut)
		require.Error(t, err, "-target %s", v)
		assert.Contains(t, errOut.String(), "fanout: -target ", "-target %s", v)
		assert.Contains(t, errOut.String(), "want a positive, finite reduction", "-target %s", v)
	}
	for _, v := range []string{"19", "19.5", "0.005", "1e6"} {
		_, _, err := parseFlags([]string{"-target", v}, &bytes.Buffer{})
		require.NoError(t, err, "-target %s", v)
	}
}
