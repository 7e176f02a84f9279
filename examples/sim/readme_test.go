package main

import (
	"bytes"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestREADMEFromRawOutput: the README's result table had no raw output
// committed alongside, so nothing tied its figures (and the balancer and
// failover docs that quote them) to what the command prints. The raw output
// of `go run ./examples/sim` is committed in testdata/sim-seed1.txt; the
// command must still print it byte for byte, and the README must quote it.
func TestREADMEFromRawOutput(t *testing.T) {
	raw, err := os.ReadFile("testdata/sim-seed1.txt")
	require.NoError(t, err, "raw output of the README's figures")
	var out bytes.Buffer
	require.NoError(t, run(&out, 1, 300, ""))
	assert.Equal(t, string(raw), out.String(), "the command no longer prints the committed raw output")

	readme, err := os.ReadFile("README.md")
	require.NoError(t, err)
	_, body, ok := strings.Cut(string(raw), "\n\n") // the README quotes it from the tables on
	require.True(t, ok)
	assert.Contains(t, string(readme), "```\n"+body+"```\n", "README results differ from the raw output")
}
