package main

import (
	"bytes"
	"errors"
	"flag"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestArgumentsRefused: c2c has no settings, yet "c2c -h" ran the
// measurement instead of printing a usage, and "c2c 10000" or "c2c -rounds
// 9" ran it as if the argument were a setting. -h prints the usage (exit 0);
// anything else is refused (exit 2). Found by a review.
func TestArgumentsRefused(t *testing.T) {
	for _, tc := range []struct {
		args []string
		says string
	}{{[]string{"10000"}, "c2c: unexpected argument"}, {[]string{"-rounds", "9"}, "flag provided but not defined"}} {
		var errOut bytes.Buffer
		err := parseFlags(tc.args, &errOut)
		require.Error(t, err, "%q", tc.args)
		assert.False(t, errors.Is(err, flag.ErrHelp), "%q", tc.args)
		assert.Contains(t, errOut.String(), tc.says, "%q", tc.args)
	}
	var errOut bytes.Buffer
	err := parseFlags([]string{"-h"}, &errOut)
	assert.True(t, errors.Is(err, flag.ErrHelp), "-h is help (exit 0): %v", err)
	assert.Contains(t, errOut.String(), "usage: c2c")
	require.NoError(t, parseFlags(nil, &bytes.Buffer{}))
}
