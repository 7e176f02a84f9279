package cache_test

import (
	"fmt"
	"strings"
	"testing"
)

type workload struct {
	name     string
	trace    string // file in tracesDir, or "" for zipf
	capacity int
}

var workloads = []workload{
	{"OLTP/250", "oltp.gz", 250},
	{"OLTP/2000", "oltp.gz", 2000},
	{"P3/25k", "p3.gz", 25_000},
	{"P3/100k", "p3.gz", 100_000},
	{"Zipf/1k", "", 1_000},
	{"Zipf/10k", "", 10_000},
}

func workloadKeys(tb testing.TB, w workload) []uint64 {
	if w.trace == "" {
		return zipfKeys(2_000_000, 1<<20, 42)
	}
	return loadTrace(tb, w.trace)
}

// TestHitRatio replays every workload through every cache and prints the table
// of bench/cache/README.md. It checks tierkit against the target: at most
// 0.5 points below otter and theine (the better of the two sets the bar).
func TestHitRatio(t *testing.T) {
	if testing.Short() {
		t.Skip("hit-ratio replay skipped in -short mode")
	}
	var b strings.Builder
	fmt.Fprintf(&b, "| workload |")
	for _, im := range impls {
		fmt.Fprintf(&b, " %s |", im.name)
	}
	fmt.Fprintf(&b, " target |\n|---|")
	for range impls {
		b.WriteString("---|")
	}
	b.WriteString("---|\n")
	for _, w := range workloads {
		t.Run(w.name, func(t *testing.T) {
			keys := workloadKeys(t, w)
			got := map[string]float64{}
			fmt.Fprintf(&b, "| %s |", w.name)
			for _, im := range impls {
				got[im.name] = replay(im.make(w.capacity), keys)
				fmt.Fprintf(&b, " %.2f |", got[im.name])
			}
			bar := max(got["otter"], got["theine"]) - 0.5
			met := "met"
			if got["tierkit"] < bar {
				met = "NOT met"
			}
			fmt.Fprintf(&b, " %s (>= %.2f) |\n", met, bar)
			t.Logf("%s: tierkit %.2f otter %.2f theine %.2f -> %s", w.name, got["tierkit"], got["otter"], got["theine"], met)
		})
	}
	t.Logf("hit ratios (%%):\n%s", b.String())
}
