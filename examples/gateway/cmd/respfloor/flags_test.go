package main

import (
	"bytes"
	"errors"
	"flag"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestStrayArgumentsRefused: "respfloor 127.0.0.1:7500" served on the
// default address, 127.0.0.1:7399, and "respfloor x -addr ..." ignored
// -addr: flag parsing stops at the first argument that is not a flag, and
// the rest was ignored. Found by a review.
func TestStrayArgumentsRefused(t *testing.T) {
	for _, args := range [][]string{{"127.0.0.1:7500"}, {"x", "-addr", "127.0.0.1:7500"}, {"-addr", "127.0.0.1:7500", "x"}} {
		var errOut bytes.Buffer
		_, err := parseFlags(args, &errOut)
		require.Error(t, err, "%q", args)
		assert.Contains(t, errOut.String(), `respfloor: unexpected argument`, "%q", args)
	}
	addr, err := parseFlags([]string{"-addr", "127.0.0.1:7500"}, &bytes.Buffer{})
	require.NoError(t, err)
	assert.Equal(t, "127.0.0.1:7500", addr)
	addr, err = parseFlags(nil, &bytes.Buffer{})
	require.NoError(t, err)
	assert.Equal(t, "127.0.0.1:7399", addr)
	_, err = parseFlags([]string{"-h"}, &bytes.Buffer{})
	assert.True(t, errors.Is(err, flag.ErrHelp), "-h is help (exit 0): %v", err)
}
