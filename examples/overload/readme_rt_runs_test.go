package main

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// rtRun is one row of rt_runs.txt that counts in the real-mode tallies.
type rtRun struct {
	name                 string
	rejected             int
	inDeadline, goodput  float64
	share                float64 // shed + aimd, % of the process CPU
	periodsIn, periodsOf int
}

// rtExperiments are the run labels of variants not kept; the tallies leave
// them out ("the arr runs of batches AA to AF").
var rtExperiments = []string{"-dl-", "-anyover-", "-yield-", "-hand1-", "-hand-"}

var (
	rtBatch   = regexp.MustCompile(`^## batch (\w+)`)
	rtPeriods = regexp.MustCompile(`^(\d+) of (\d+)$`)
	rtShare   = regexp.MustCompile(`^(\d+\.\d\d)%`) // the last column's start
)

// readRTRuns returns the runs the tallies count: every row from batch H (the
// twelfth session, when shedding on arrival became the default) on, the
// seventeenth session's alternating runs included, without the experiments.
func readRTRuns(t *testing.T) []rtRun {
	t.Helper()
	f, err := os.Open("rt_runs.txt")
	require.NoError(t, err)
	defer f.Close()
	var runs []rtRun
	counted := false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if m := rtBatch.FindStringSubmatch(line); m != nil {
			counted = len(m[1]) > 1 || m[1] >= "H" // batches A to G predate the default options
			continue
		}
		if strings.HasPrefix(line, "## seventeenth session") {
			counted = true
		}
		if strings.HasPrefix(line, "#") || !strings.Contains(line, "|") || !counted {
			continue
		}
		runs = append(runs, parseRTRun(t, line)...)
	}
	require.NoError(t, sc.Err())
	return runs
}

// parseRTRun parses one row, or returns nothing for an experiment's.
func parseRTRun(t *testing.T, line string) []rtRun {
	t.Helper()
	f := strings.Split(line, "|")
	for i := range f {
		f[i] = strings.TrimSpace(f[i])
	}
	require.GreaterOrEqual(t, len(f), 9, line)
	for _, e := range rtExperiments {
		if strings.Contains(f[0]+"-", e) {
			return nil
		}
	}
	r := rtRun{name: f[0]}
	var err error
	r.rejected, err = strconv.Atoi(f[1])
	require.NoError(t, err, line)
	r.inDeadline, err = strconv.ParseFloat(f[2], 64)
	require.NoError(t, err, line)
	r.goodput, err = strconv.ParseFloat(f[3], 64)
	require.NoError(t, err, line)
	p := rtPeriods.FindStringSubmatch(f[5])
	require.NotNil(t, p, line)
	r.periodsIn, _ = strconv.Atoi(p[1])
	r.periodsOf, _ = strconv.Atoi(p[2])
	s := rtShare.FindStringSubmatch(f[len(f)-1])
	require.NotNil(t, s, "no shed+aimd share: %s", line)
	r.share, err = strconv.ParseFloat(s[1], 64)
	require.NoError(t, err, line)
	return []rtRun{r}
}

// rtTally is what the docs quote from the runs.
type rtTally struct {
	runs, met, noReject, inDeadline, goodputOK, shareOK, cpuHeld, shareOverAtCost4 int
	allInDeadline                                                                  int // runs at 100.000%
	shareMin, shareMax, goodputMin, goodputMax                                     float64
}

func tallyRTRuns(runs []rtRun) rtTally {
	y := rtTally{runs: len(runs), shareMin: 100, goodputMin: 1000}
	for _, r := range runs {
		noReject, dl, gp := r.rejected == 0, r.inDeadline >= 99.9, r.goodput >= 98
		share, held := r.share <= 3, 5*r.periodsIn >= 4*r.periodsOf // 80% of the periods
		y.noReject += b2i(noReject)
		y.inDeadline += b2i(dl)
		y.allInDeadline += b2i(r.inDeadline == 100)
		y.goodputOK += b2i(gp)
		y.shareOK += b2i(share)
		y.cpuHeld += b2i(held)
		y.met += b2i(noReject && dl && gp && share && held)
		if !share && strings.Contains(r.name, "-c4") {
			y.shareOverAtCost4++
		}
		y.shareMin, y.shareMax = min(y.shareMin, r.share), max(y.shareMax, r.share)
		y.goodputMin, y.goodputMax = min(y.goodputMin, r.goodput), max(y.goodputMax, r.goodput)
	}
	return y
}

// inWords writes a count as the docs do: in words up to ten.
func inWords(n int) string {
	words := []string{"none", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten"}
	if n < len(words) {
		return words[n]
	}
	return strconv.Itoa(n)
}

// docText is a file's text with Go comment markers, bold marks and line
// breaks taken out, so that a phrase wrapped over lines still matches.
func docText(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.FromSlash(path))
	require.NoError(t, err)
	s := strings.ReplaceAll(string(b), "\n//", "\n")
	s = strings.ReplaceAll(s, "**", "")
	return strings.Join(strings.Fields(s), " ")
}

// TestREADMERealModeTallies recounts the real-mode runs in rt_runs.txt
// and checks the counts every document quotes from them: this README, the
// repository's README, bench/README.md and the shed and aimd package docs.
func TestREADMERealModeTallies(t *testing.T) {
	y := tallyRTRuns(readRTRuns(t))
	require.Positive(t, y.runs)
	n, over, atCost4 := y.runs, y.runs-y.shareOK, inWords(y.shareOverAtCost4)
	shares := fmt.Sprintf("%.2f-%.2f%%", y.shareMin, y.shareMax)
	goodput := fmt.Sprintf("%.2f-%.2f%%", y.goodputMin, y.goodputMax)
	want := map[string][]string{
		"README.md": {
			fmt.Sprintf("the default options (shedding on arrival, since the twelfth session), %d runs", n),
			fmt.Sprintf("| target | real mode, %d runs | met |", n),
			fmt.Sprintf("%s; below 98%% in %d runs", goodput, n-y.goodputOK),
			fmt.Sprintf("%s; above 3%% in %d runs, all but %s at cost 1", shares, over, atCost4),
			fmt.Sprintf("%d of the %d runs met every target", y.met, n),
		},
		"../../README.md": {
			fmt.Sprintf("%d of %d runs meet every target (0 normal tenants rejected in %d; goodput below 98%% in %d; shed + aimd above 3%% of the CPU in %d, all but %s at cost 1)",
				y.met, n, y.noReject, n-y.goodputOK, over, atCost4),
			fmt.Sprintf("within +-3 in 80-100%% of periods given the CPU (`-rt`; %d of %d runs,", y.cpuHeld, n),
		},
		"../../bench/README.md": {
			fmt.Sprintf("%d runs in all: %d met every target; 0 normal tenants rejected in %d; goodput below 98%% in %d", n, y.met, y.noReject, n-y.goodputOK),
			fmt.Sprintf("shed + aimd CPU above 3%% in %d runs, all but %s at cost 1", over, atCost4),
		},
		"../../shed/doc.go": {
			fmt.Sprintf("over %d runs on shared 2-core VMs, no normal tenant was rejected in %d, shed + aimd took %s of the CPU (above the 3%% target in %d runs) and goodput read %s (below 98%% in %d,",
				n, y.noReject, shares, over, goodput, n-y.goodputOK),
		},
		"../../aimd/doc.go": {
			fmt.Sprintf("80-100%% in %d of the %d runs since", y.cpuHeld, n),
		},
	}
	// Each target's count, in its own row of the real-mode table: the same
	// count in another row does not stand for it.
	rows := realModeRows(t, n)
	for label, met := range map[string]int{
		"normal tenants with any rejection: 0":                                 y.noReject,
		"normal requests within deadline >= 99.9%":                             y.inDeadline,
		"goodput >= 98%":                                                       y.goodputOK,
		"shedder CPU <= 3% (shed + aimd in a CPU profile of the measured run)": y.shareOK,
		"CPU held at 90% +-3":                                                  y.cpuHeld,
	} {
		require.Contains(t, rows, label, "README.md: the real-mode table's row")
		assert.True(t, strings.HasSuffix(rows[label], fmt.Sprintf("| in %d of %d |", met, n)),
			"README.md: the row %q does not end \"in %d of %d\" (from rt_runs.txt): %s", label, met, n, rows[label])
	}
	// The runs each row's breakdown starts with.
	assert.Contains(t, rows["normal tenants with any rejection: 0"], fmt.Sprintf("| 0 / 1,344 in %d;", y.noReject),
		"README.md: runs without a normal tenant rejected (from rt_runs.txt)")
	assert.Contains(t, rows["normal requests within deadline >= 99.9%"], fmt.Sprintf("| 100.000%% in %d,", y.allInDeadline),
		"README.md: runs with every normal request in deadline (from rt_runs.txt)")
	for path, phrases := range want {
		text := docText(t, path)
		for _, p := range phrases {
			assert.True(t, strings.Contains(text, p), "%s does not say %q (from rt_runs.txt)", path, p)
		}
	}
}

// realModeRows returns the rows of the README's real-mode table of n runs,
// by their first cell.
func realModeRows(t *testing.T, n int) map[string]string {
	t.Helper()
	b, err := os.ReadFile("README.md")
	require.NoError(t, err)
	header := fmt.Sprintf("| target | real mode, %d runs | met |", n)
	rows := map[string]string{}
	in := false
	for _, l := range strings.Split(string(b), "\n") {
		switch {
		case l == header:
			in = true
		case in && !strings.HasPrefix(l, "|"):
			return rows
		case in && !strings.HasPrefix(l, "|---"):
			label, _, _ := strings.Cut(strings.TrimPrefix(l, "| "), " |")
			rows[label] = l
		}
	}
	require.True(t, in, "README.md has no real-mode table of %d runs", n)
	return rows
}
