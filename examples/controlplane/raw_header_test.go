package controlplane_test

import (
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestBenchCostsNamesItsCommand: bench_costs.txt, which the README's Costs
// table quotes, starts with a header line giving the command that produced
// it, the one the README names.
func TestBenchCostsNamesItsCommand(t *testing.T) {
	const cmd = "go test -run '^$' -bench . -benchmem -count 6\n./controlplane/"
	readme, err := os.ReadFile("README.md")
	require.NoError(t, err)
	assert.Contains(t, string(readme), cmd, "the README names the command")
	raw, err := os.ReadFile("bench_costs.txt")
	require.NoError(t, err)
	first, _, _ := strings.Cut(string(raw), "\n")
	require.True(t, strings.HasPrefix(first, "# "), "the first line is no header: %q", first)
	assert.Contains(t, first, strings.ReplaceAll(cmd, "\n", " "))
}
