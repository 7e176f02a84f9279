package main

import (
	"bytes"
	"io"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestREADMEFromRawOutput: the README's figures ("as printed by go run
// ./examples/fanout") had no raw output committed alongside, and a test
// checked only five of them. testdata/fanout-default.txt is that output; the
// command must still print it byte for byte, and every figure the README's
// results section quotes (all but the "~" approximations) must be in it.
func TestREADMEFromRawOutput(t *testing.T) {
	raw, err := os.ReadFile("testdata/fanout-default.txt")
	require.NoError(t, err, "raw output of the README's figures")
	f, target, err := parseFlags(nil, io.Discard)
	require.NoError(t, err)
	var out bytes.Buffer
	require.NoError(t, report(&out, f, target))
	assert.Equal(t, string(raw), out.String(), "the command no longer prints the committed raw output")

	readme, err := os.ReadFile("README.md")
	require.NoError(t, err)
	_, results, ok := strings.Cut(string(readme), "## Which assumptions")
	require.True(t, ok)
	results, _, ok = strings.Cut(results, "The tests (")
	require.True(t, ok)
	plain := strings.ReplaceAll(string(raw), ",", "")
	figures := regexp.MustCompile(`(~?)(\d[\d,]*(?:\.\d+)?)`).FindAllStringSubmatch(results, -1)
	require.NotEmpty(t, figures)
	for _, m := range figures {
		if m[1] == "~" {
			continue // an approximation, said to be one
		}
		assert.Contains(t, plain, strings.ReplaceAll(m[2], ",", ""), "README figure %s is not in the raw output", m[2])
	}
}
