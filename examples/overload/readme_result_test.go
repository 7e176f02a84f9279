package main

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestREADMESimulationResult runs the README's command, `go run ./overload`
// (20 s of virtual time), in-process and checks what the README quotes from
// it: the result hash, every deterministic column of both tables (the
// ns/decision and shedder CPU columns are timed on the wall clock and are
// left out), and the committed overload.svg, drawn from the same results.
// It takes about 6 s, about 50-70 s under the race detector, which it skips:
// the simulation runs on one goroutine, so the detector has nothing to find
// there, and scripts/test.sh runs it once without -race. -short skips it.
// The hash was checked on amd64 (GOAMD64 v1 and v3) and 386; elsewhere the
// compiler may fuse a multiply and an add (the APF baseline's virtual
// clock), which rounds differently, so it is skipped there.
func TestREADMESimulationResult(t *testing.T) {
	if raceEnabled {
		t.Skip("the simulation is single-threaded; under -race it would take 50-70 s (scripts/test.sh runs it without)")
	}
	if testing.Short() {
		t.Skip("-short: the 20 s simulation")
	}
	if runtime.GOARCH != "amd64" && runtime.GOARCH != "386" {
		t.Skipf("the README's result was checked on amd64 and 386, not %s", runtime.GOARCH)
	}
	readme, err := os.ReadFile("README.md")
	require.NoError(t, err)
	quoted := readmeSimulationBlock(t, string(readme))

	o, err := parseFlags(nil, io.Discard) // the README's command: no flags
	require.NoError(t, err)
	require.Equal(t, 20*time.Second, o.d)
	o.plotPath = filepath.Join(t.TempDir(), "overload.svg")
	var out stringsBuilder
	require.Zero(t, simulate(o, &out))

	var got []string
	for _, l := range strings.Split(out.String(), "\n") {
		if l != "" && !strings.HasPrefix(l, "plot written to") {
			got = append(got, l)
		}
	}
	require.Len(t, got, len(quoted), "lines printed\n%s", out.String())
	for i := range quoted {
		assert.Equal(t, deterministicPart(quoted[i]), deterministicPart(got[i]), "line %d", i+1)
	}
	assert.Equal(t, "result hash (deterministic part): 273870090d49cf9381230b9f0d711cb743171fa0dbe75b8b306c55fc0aedfc4e",
		got[len(got)-1], "the hash the README quotes")

	svg, err := os.ReadFile(o.plotPath)
	require.NoError(t, err)
	committed, err := os.ReadFile("overload.svg")
	require.NoError(t, err)
	assert.True(t, bytes.Equal(committed, svg), "overload.svg is the plot of this run")
}

// readmeSimulationBlock returns the lines of the README's output block that
// follows its "`go run ./overload` (20 s virtual" paragraph.
func readmeSimulationBlock(t *testing.T, readme string) []string {
	t.Helper()
	lines := strings.Split(readme, "\n")
	at := -1
	for i, l := range lines {
		if strings.HasPrefix(l, "`go run ./overload` (20 s virtual") {
			at = i
			break
		}
	}
	require.GreaterOrEqual(t, at, 0, "the README's 20 s run")
	for at < len(lines) && lines[at] != "```" {
		at++
	}
	var block []string
	for _, l := range lines[at+1:] {
		if l == "```" {
			return block
		}
		block = append(block, l)
	}
	t.Fatal("the README's output block is not closed")
	return nil
}

var columnGap = regexp.MustCompile(`\s{2,}`)

// deterministicPart is a line of the output without its timed columns: a
// table line (right-aligned, so it starts with a space) loses its last two,
// ns/decision and shedder CPU %; any other line is kept whole.
func deterministicPart(line string) string {
	if !strings.HasPrefix(line, " ") {
		return line
	}
	f := columnGap.Split(strings.TrimSpace(line), -1)
	if len(f) < 2 {
		return line
	}
	return strings.Join(f[:len(f)-2], " | ")
}
