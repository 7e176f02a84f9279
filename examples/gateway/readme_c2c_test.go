package main

import (
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// againstTwemproxy returns the README's "Against twemproxy" section, its
// white space runs made single spaces.
func againstTwemproxy(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile("README.md")
	require.NoError(t, err)
	_, sec, ok := strings.Cut(string(b), "\n## Against twemproxy\n")
	require.True(t, ok, "README.md has no \"Against twemproxy\" section")
	sec, _, _ = strings.Cut(sec, "\n## ")
	return strings.Join(strings.Fields(sec), " ") // one line: a claim may wrap
}

// TestREADMECoreToCoreRanges: where "Against twemproxy" gives a run's
// core-to-core round trip as a range ("at A-B ns between the cores") before
// the link to its raw file, the range must be the lowest and highest reading
// of compare.sh's c2c lines in that file. The fiftieth session's six runs
// read "100-141 ns" where the file has 55-538 ns (four of its twelve
// readings outside), and the fifty-second's "279-368 ns" where it has a
// reading of 72 ns: the README reads the rows with the round trip, and a
// range that leaves readings out reads a host as steadier than it was.
func TestREADMECoreToCoreRanges(t *testing.T) {
	sec := againstTwemproxy(t)
	link := regexp.MustCompile(`\[([a-z_]+_runs\.txt)\]\(([a-z_]+_runs\.txt)\)`)
	claim := regexp.MustCompile(`at ([0-9,]+)-([0-9,]+) ns between the cores`)
	reading := regexp.MustCompile(`core-to-core round trip: ([0-9]+) ns`)
	num := func(s string) int {
		n, err := strconv.Atoi(strings.ReplaceAll(s, ",", ""))
		require.NoError(t, err)
		return n
	}
	prev, checked := 0, 0
	for _, m := range link.FindAllStringSubmatchIndex(sec, -1) {
		before := sec[prev:m[0]]
		prev = m[1]
		name := sec[m[2]:m[3]]
		cs := claim.FindAllStringSubmatch(before, -1)
		if len(cs) == 0 {
			continue
		}
		raw, err := os.ReadFile(name)
		require.NoError(t, err)
		lo, hi := -1, -1
		for _, r := range reading.FindAllStringSubmatch(string(raw), -1) {
			v := num(r[1])
			if lo < 0 || v < lo {
				lo = v
			}
			hi = max(hi, v)
		}
		require.GreaterOrEqual(t, lo, 0, "%s has no core-to-core readings", name)
		c := cs[len(cs)-1]
		assert.Equal(t, [2]int{lo, hi}, [2]int{num(c[1]), num(c[2])},
			"README.md says %q before [%s]; the file's readings are %d-%d ns", c[0], name, lo, hi)
		checked++
	}
	assert.GreaterOrEqual(t, checked, 8, "the ranges checked")
}
