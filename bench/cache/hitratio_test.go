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

// TestHitRatio replays every workload through every cache and prints the tables
// of bench/cache/README.md: hit ratios, the target for tierkit (at most
// 0.5 points below otter and theine, so the better of the two sets the bar),
// and how many entries each cache actually held, since otter and theine apply
// writes through buffers and hold more than their capacity for a while.
//
// Under -race it replays only the first requests of each workload (the race
// detector makes a full replay take minutes); the tables come from a run
// without it:
//
//	cd bench && go test -run TestHitRatio -v ./cache/
func TestHitRatio(t *testing.T) {
	var ratios, sizes strings.Builder
	ratios.WriteString("| workload |")
	sizes.WriteString("| workload |")
	for _, im := range impls {
		fmt.Fprintf(&ratios, " %s |", im.name)
		fmt.Fprintf(&sizes, " %s |", im.name)
	}
	ratios.WriteString(" tierkit target |\n|---|")
	sizes.WriteString(" tierkit at otter's / theine's mean size |\n|---|")
	for range impls {
		ratios.WriteString("---|")
		sizes.WriteString("---|")
	}
	ratios.WriteString("---|\n")
	sizes.WriteString("---|\n")
	for _, w := range workloads {
		t.Run(w.name, func(t *testing.T) {
			keys := workloadKeys(t, w)
			if raceEnabled {
				keys = keys[:min(len(keys), 100_000)]
			}
			got := map[string]float64{}
			mean := map[string]float64{}
			fmt.Fprintf(&ratios, "| %s |", w.name)
			fmt.Fprintf(&sizes, "| %s (capacity %d) |", w.name, w.capacity)
			for _, im := range impls {
				r, m, peak := replay(im.make(w.capacity), keys)
				got[im.name], mean[im.name] = r, m
				fmt.Fprintf(&ratios, " %.2f |", r)
				if m < 0 {
					sizes.WriteString(" n/a |")
				} else {
					fmt.Fprintf(&sizes, " mean %.0f, peak %d |", m, peak)
				}
				if im.name == "tierkit" && peak > w.capacity {
					t.Errorf("tierkit held %d entries, over its capacity %d", peak, w.capacity)
				}
			}
			bar := max(got["otter"], got["theine"]) - 0.5
			met := "met"
			if got["tierkit"] < bar {
				met = "NOT met"
			}
			fmt.Fprintf(&ratios, " %s (>= %.2f) |\n", met, bar)
			// The same policy given the room the peers actually used.
			atOtter, _, _ := replay(newTierkit(int(mean["otter"]+0.5)), keys)
			atTheine, _, _ := replay(newTierkit(int(mean["theine"]+0.5)), keys)
			fmt.Fprintf(&sizes, " %.2f / %.2f |\n", atOtter, atTheine)
			t.Logf("%s: tierkit %.2f otter %.2f theine %.2f -> %s; tierkit at otter's/theine's mean size %.2f/%.2f",
				w.name, got["tierkit"], got["otter"], got["theine"], met, atOtter, atTheine)
			if got["tierkit"] < got["golang-lru"]-1 {
				t.Errorf("%s: tierkit %.2f below plain LRU %.2f", w.name, got["tierkit"], got["golang-lru"])
			}
		})
	}
	t.Logf("hit ratios (%%):\n%s\nentries held:\n%s", ratios.String(), sizes.String())
}
