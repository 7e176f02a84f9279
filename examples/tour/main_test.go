package main

import (
	"bytes"
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
