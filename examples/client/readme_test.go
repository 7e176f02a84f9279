package client_test

import (
	"fmt"
	"math"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestREADMEFiguresFromRawOutput: every figure the README quotes from a run
// is in a committed raw output. The test table's measured figures (retries,
// shares, publications) had none: they are checked against
// testdata/readme_tests.txt, and the benchmark's medians and spread against
// bench_route.txt.
func TestREADMEFiguresFromRawOutput(t *testing.T) {
	readme := readFile(t, "README.md")
	raw := readFile(t, "testdata/readme_tests.txt")

	m := find(t, readme, `retries <= 4 \(one per worker; (\d+) killed, (\d+) drained in the committed run\)`)
	assert.Contains(t, raw, "killed: retries "+m[1]+",")
	assert.Contains(t, raw, "drained: retries "+m[2]+",")

	m = find(t, readme, `\(within ([\d.]+) in the committed run, e\.g\. ([\d.]+)/([\d.]+)/([\d.]+) for 1:2:5\)`)
	assert.Contains(t, raw, fmt.Sprintf("weights [1 2 5] -> shares [%s %s %s]", m[2], m[3], m[4]))
	within, err := strconv.ParseFloat(m[1], 64)
	require.NoError(t, err)
	shares := regexp.MustCompile(`weights \[([\d ]+)\] -> shares \[([\d. ]+)\]`).FindAllStringSubmatch(raw, -1)
	require.Len(t, shares, 3)
	var worst float64
	for _, s := range shares {
		w, got := floats(t, s[1]), floats(t, s[2])
		var sum float64
		for _, x := range w {
			sum += x
		}
		for i := range w {
			worst = max(worst, math.Abs(100*(got[i]-w[i]/sum)))
		}
	}
	worst = math.Round(10*worst) / 10 // the README's precision
	assert.Equal(t, within, worst, "largest distance from the weights' share, in points")

	m = find(t, readme, `republished in a loop \(([\d,]+) times in the committed run\)`)
	assert.Contains(t, raw, strings.ReplaceAll(m[1], ",", "")+" publications during 800 writes")

	checkBenchFigures(t, readme, readFile(t, "bench_route.txt"))
}

// checkBenchFigures checks the README's medians of the Route benchmark, and
// the spread it quotes, against the raw output.
func checkBenchFigures(t *testing.T, readme, raw string) {
	t.Helper()
	medians, all := routeMedians(t, raw)
	for name, med := range medians {
		want := fmt.Sprintf(`(?m)^Route/%s\s+%.0fn\s+%.0f\s+%.0f$`, regexp.QuoteMeta(name), med[0], med[1], med[2])
		assert.Regexp(t, want, readme, "README medians of %s", name)
	}
	m := find(t, readme, `the runs spread from (\d+) to (\d+) ns`)
	assert.Equal(t, m[1], strconv.Itoa(int(math.Round(slices.Min(all)))))
	assert.Equal(t, m[2], strconv.Itoa(int(math.Round(slices.Max(all)))))
}

// routeMedians reads the Route benchmark's runs from raw: the medians of
// ns/op, B/op and allocs/op per sub-benchmark (6 runs each), and every
// run's ns/op.
func routeMedians(t *testing.T, raw string) (map[string][3]float64, []float64) {
	t.Helper()
	line := regexp.MustCompile(`(?m)^BenchmarkRoute/(\S+)\s+\d+\s+([\d.]+) ns/op\s+(\d+) B/op\s+(\d+) allocs/op$`)
	runs := map[string][][3]float64{}
	var all []float64
	for _, l := range line.FindAllStringSubmatch(raw, -1) {
		var r [3]float64
		for i := range r {
			r[i] = floats(t, l[2+i])[0]
		}
		runs[l[1]] = append(runs[l[1]], r)
		all = append(all, r[0])
	}
	require.Len(t, runs, 2)
	medians := map[string][3]float64{}
	for name, rs := range runs {
		require.Len(t, rs, 6, name)
		var med [3]float64
		for i := range med {
			col := make([]float64, len(rs))
			for j, r := range rs {
				col[j] = r[i]
			}
			slices.Sort(col)
			med[i] = (col[2] + col[3]) / 2
		}
		medians[name] = med
	}
	return medians, all
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	return string(b)
}

func find(t *testing.T, s, re string) []string {
	t.Helper()
	m := regexp.MustCompile(re).FindStringSubmatch(s)
	require.NotNil(t, m, "%s not found", re)
	return m
}

func floats(t *testing.T, s string) []float64 {
	t.Helper()
	var out []float64
	for _, f := range strings.Fields(s) {
		v, err := strconv.ParseFloat(f, 64)
		require.NoError(t, err)
		out = append(out, v)
	}
	return out
}
