package main

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestStrayArgumentsRefused: "fanout 4000000 -clients 4000000" printed the
// article's fleet of 1,000,000 clients: flag parsing stops at the first
// argument that is not a flag, so the stray argument and every flag after it
// were ignored. Found by a review.
func TestStrayArgumentsRefused(t *testing.T) {
	for _, args := range [][]string{{"4000000"}, {"4000000", "-clients", "4000000"}, {"-clients", "4000000", "x"}} {
		var errOut bytes.Buffer
		_, _, err := parseFlags(args, &errOut)
		require.Error(t, err, "%q", args)
		assert.Contains(t, errOut.String(), "unexpected argument", "%q", args)
	}
	f, _, err := parseFlags([]string{"-clients", "4000000"}, &bytes.Buffer{})
	require.NoError(t, err)
	assert.Equal(t, 4_000_000, f.Clients)
}
