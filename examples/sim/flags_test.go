package main

import (
	"bytes"
	"errors"
	"flag"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestStrayArgumentsRefused: "sim plots -seed 2" printed seed 1's tables
// and wrote no plots, exiting 0: flag parsing stops at the first argument
// that is not a flag, and the rest was ignored. Found by a review.
func TestStrayArgumentsRefused(t *testing.T) {
	for _, args := range [][]string{{"plots"}, {"plots", "-seed", "2"}, {"-seed", "2", "3"}} {
		var errOut bytes.Buffer
		_, err := parseFlags(args, &errOut)
		require.Error(t, err, "%q", args)
		assert.Contains(t, errOut.String(), "unexpected argument", "%q", args)
	}

	o, err := parseFlags([]string{"-seed", "2", "-runs", "40", "-plots", "out"}, &bytes.Buffer{})
	require.NoError(t, err)
	assert.Equal(t, options{seed: 2, runs: 40, plots: "out"}, o)
	o, err = parseFlags(nil, &bytes.Buffer{})
	require.NoError(t, err)
	assert.Equal(t, options{seed: 1, runs: 300}, o)

	_, err = parseFlags([]string{"-h"}, &bytes.Buffer{})
	assert.True(t, errors.Is(err, flag.ErrHelp), "-h is help (exit 0), not an error: %v", err)
	_, err = parseFlags([]string{"-runs", "x"}, &bytes.Buffer{})
	assert.Error(t, err)
}
