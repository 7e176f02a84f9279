package main

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestPlotFlagFormats: -h said the plot is ".svg or .png", but the plot is
// saved by its name's extension and a .pdf name wrote a PDF; a name with an
// extension no format has (.txt, none) was accepted, ran the whole
// simulation, then left an empty file behind and exited 1. The help names
// the three formats, and any other name is refused before the simulation
// runs. Found by a review.
func TestPlotFlagFormats(t *testing.T) {
	var usage bytes.Buffer
	_, err := parseFlags([]string{"-h"}, &usage)
	require.Error(t, err)
	assert.Contains(t, usage.String(), ".svg, .png or .pdf")

	for _, name := range []string{"overload.svg", "o.png", "o.pdf", "O.SVG", ""} {
		o, err := parseFlags([]string{"-plot", name}, &bytes.Buffer{})
		require.NoError(t, err, "%q", name)
		assert.Equal(t, name, o.plotPath)
	}
	for _, name := range []string{"o.txt", "overload", "o.svg.bak", "o.jpg"} {
		var errOut bytes.Buffer
		_, err := parseFlags([]string{"-plot", name}, &errOut)
		require.Error(t, err, "%q", name)
		assert.Contains(t, errOut.String(), "-plot "+name, "%q", name)
	}

	// What the help promises is what plotResults writes.
	res := experiment(10 * time.Millisecond)
	for ext, magic := range map[string]string{".svg": "<?xml", ".png": "\x89PNG", ".pdf": "%PDF"} {
		path := filepath.Join(t.TempDir(), "p"+ext)
		require.NoError(t, plotResults(path, res), ext)
		b, err := os.ReadFile(path)
		require.NoError(t, err)
		assert.True(t, bytes.HasPrefix(b, []byte(magic)), "%s starts %q", ext, b[:min(len(b), 8)])
	}
}
