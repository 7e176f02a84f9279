package client_test

import (
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestDocFiguresFromRawOutput: the package doc's "Measured" section quotes
// only what the committed raw outputs hold, as the README does. It quoted a
// Route median of 168 ns (170 for the baseline) from 8 runs, shares of
// 0.121/0.247/0.632 for 1:2:5, and a Set through a gateway at 810 µs against
// 35 µs direct (redis-benchmark's p50 1.28 ms), none of which any committed
// file has (bench_route.txt holds 6 runs with medians of 189 and 206 ns; no
// run of BenchmarkSet is committed).
func TestDocFiguresFromRawOutput(t *testing.T) {
	doc := strings.Join(strings.Fields(strings.ReplaceAll(readFile(t, "doc.go"), "//", "")), " ")
	medians, _ := routeMedians(t, readFile(t, "bench_route.txt"))

	assert.Contains(t, doc, "-count 6 ./client/", "the command that made bench_route.txt")
	m := find(t, doc, `\[Client\.Route\]\) (\d+) ns`)
	assert.Equal(t, fmt.Sprintf("%.0f", medians["client-2"][0]), m[1], "Route's median")
	m = find(t, doc, `baseline [^(]*\((\d+) ns, (\d+) B/op\)`)
	assert.Equal(t, fmt.Sprintf("%.0f", medians["naive-mutex-2"][0]), m[1], "the baseline's median")
	assert.Equal(t, fmt.Sprintf("%.0f", medians["naive-mutex-2"][1]), m[2], "the baseline's B/op")

	m = find(t, doc, `for example ([\d.]+) / ([\d.]+) / ([\d.]+) for 1:2:5`)
	assert.Contains(t, readFile(t, "testdata/readme_tests.txt"), fmt.Sprintf("weights [1 2 5] -> shares [%s %s %s]", m[1], m[2], m[3]))

	// No committed run of BenchmarkSet (README.md says so), nor of
	// redis-benchmark against a gateway: no latency of either.
	assert.Empty(t, regexp.MustCompile(`\d+ µs|p50 [\d.]+ ms`).FindAllString(doc, -1), "latencies with no committed raw output")
}
