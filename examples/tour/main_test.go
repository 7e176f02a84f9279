package main

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestTourRuns runs every section, as `go run ./examples/tour` does, so a section
// that breaks fails CI rather than the README's main command.
func TestTourRuns(t *testing.T) {
	var out bytes.Buffer
	require.NoError(t, run(&out, nil))
	for _, s := range sections {
		require.Contains(t, out.String(), "== "+s.name+":", "section %s printed", s.name)
	}
}

func TestTourRejectsUnknownSection(t *testing.T) {
	var out bytes.Buffer
	err := run(&out, []string{"no-such-package"})
	require.Error(t, err)
	require.True(t, strings.Contains(err.Error(), "no section"), err.Error())
}

// TestTourHeaderNamesWhatRuns: asked for one section, the tour printed
// "tierkit tour: 12 section(s): coalesce, batcher, ..." above the one it ran,
// as if the other eleven had run too. Found by a review.
func TestTourHeaderNamesWhatRuns(t *testing.T) {
	var out bytes.Buffer
	require.NoError(t, run(&out, []string{"failover", "aimd"}))
	header, _, _ := strings.Cut(out.String(), "\n")
	require.Equal(t, fmt.Sprintf("tierkit tour: 2 of %d section(s): aimd, failover", len(sections)), header)
	require.NotContains(t, out.String(), "== coalesce:")

	out.Reset()
	require.NoError(t, run(&out, nil))
	header, _, _ = strings.Cut(out.String(), "\n")
	require.True(t, strings.HasPrefix(header, fmt.Sprintf("tierkit tour: %d section(s): coalesce, batcher, ", len(sections))), header)
}

// TestTourUsageExitStatus: an argument naming no section (a typo, -h) made
// the tour exit 1, the status of a section that failed, where the other
// example commands exit 2 for bad usage and 0 for -h. Found by a review.
func TestTourUsageExitStatus(t *testing.T) {
	var out, errOut bytes.Buffer
	require.Equal(t, 2, command(&out, &errOut, []string{"no-such-package"}))
	require.Contains(t, errOut.String(), `no section "no-such-package"`)
	require.Empty(t, out.String(), "nothing runs")

	out.Reset()
	errOut.Reset()
	require.Equal(t, 0, command(&out, &errOut, []string{"-h"}))
	require.Contains(t, out.String(), "usage: tour [section ...]")
	require.Contains(t, out.String(), "coalesce, batcher")
	require.Empty(t, errOut.String())
}
