package main

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestSimDurationBounded: -d had no upper bound, and the simulation draws
// every arrival of its virtual time up front (about 43,000 a virtual
// second) and holds them with each policy's copy: -d 20m, a typo for 20s,
// or -d 1h drew tens of millions of requests per variant and ran the
// machine out of memory rather than being refused. Found by a review.
func TestSimDurationBounded(t *testing.T) {
	for _, v := range []string{"20m", "1h", "2562047h"} {
		var errOut bytes.Buffer
		_, err := parseFlags([]string{"-d", v}, &errOut)
		require.Error(t, err, "-d %s", v)
		assert.Contains(t, errOut.String(), "at most", "-d %s", v)
	}
	for _, v := range []string{"60s", "2m"} {
		_, err := parseFlags([]string{"-d", v}, &bytes.Buffer{})
		require.NoError(t, err, "-d %s", v)
	}
}
