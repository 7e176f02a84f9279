//go:build linux

package main

import (
	"bytes"
	"errors"
	"flag"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestStrayArgumentsRefused: "evfloor -addr 127.0.0.1:7500 127.0.0.1:6379
// -redis ..." forwarded to the default shard alone and ignored -redis, and
// "evfloor 127.0.0.1:7500" listened on the default address: flag parsing
// stops at the first argument that is not a flag, and the rest was ignored.
// Found by a review.
func TestStrayArgumentsRefused(t *testing.T) {
	for _, args := range [][]string{
		{"127.0.0.1:7500"}, {"-addr", "127.0.0.1:7500", "127.0.0.1:6379", "-redis", "127.0.0.1:6380"},
		{"-redis", "127.0.0.1:6380", "x"},
	} {
		var errOut bytes.Buffer
		_, _, err := parseFlags(args, &errOut)
		require.Error(t, err, "%q", args)
		assert.Contains(t, errOut.String(), `evfloor: unexpected argument`, "%q", args)
	}
	addr, shards, err := parseFlags([]string{"-addr", "127.0.0.1:7500", "-redis", "127.0.0.1:1,127.0.0.1:2"}, &bytes.Buffer{})
	require.NoError(t, err)
	assert.Equal(t, "127.0.0.1:7500", addr)
	assert.Equal(t, []string{"127.0.0.1:1", "127.0.0.1:2"}, shards)
	addr, shards, err = parseFlags(nil, &bytes.Buffer{})
	require.NoError(t, err)
	assert.Equal(t, "127.0.0.1:7398", addr)
	assert.Equal(t, []string{"127.0.0.1:6379"}, shards)
	_, _, err = parseFlags([]string{"-h"}, &bytes.Buffer{})
	assert.True(t, errors.Is(err, flag.ErrHelp), "-h is help (exit 0): %v", err)
}
