package hashringbench

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"testing"
)

// distSize returns the number of keys, of change events per measurement and the
// fleet sizes: a quick run by default (CI runs it under -race; several peers take
// seconds to build 1000 nodes), the full one with TIERKIT_LONG=1.
func distSize() (keys, events int, sizes []int) {
	if os.Getenv("TIERKIT_LONG") == "1" {
		return 1_000_000, 3, []int{10, 100, 1000}
	}
	return 20_000, 1, []int{10, 100}
}

// assign returns the owner of each of the first k measurement keys.
func assign(r router, k int) []string {
	out := make([]string, k)
	for i := range out {
		out[i] = r.lookup(key(i))
	}
	return out
}

func moved(a, b []string) float64 {
	n := 0
	for i := range a {
		if a[i] != b[i] {
			n++
		}
	}
	return float64(n) / float64(len(a))
}

// maxOverExpected returns max over members of (keys owned / keys expected from
// its weight), and the peak/mean count.
func maxOverExpected(owners []string, ms []member) (float64, float64) {
	counts := make(map[string]int, len(ms))
	for _, o := range owners {
		counts[o]++
	}
	total := 0
	for _, m := range ms {
		total += m.weight
	}
	worst, peak := 0.0, 0
	for _, m := range ms {
		expected := float64(len(owners)) * float64(m.weight) / float64(total)
		worst = math.Max(worst, float64(counts[m.id])/expected)
		peak = max(peak, counts[m.id])
	}
	return worst, float64(peak) / (float64(len(owners)) / float64(len(ms)))
}

// floor returns the max count/expected that a perfect weighted assignment shows on k
// keys (sampling noise alone), averaged over 5 draws.
func floor(ms []member, k int) float64 {
	cum := make([]float64, len(ms))
	total := 0.0
	for i, m := range ms {
		total += float64(m.weight)
		cum[i] = total
	}
	rng := rand.New(rand.NewPCG(1, uint64(len(ms))))
	sum := 0.0
	for range 5 {
		counts := make([]int, len(ms))
		for range k {
			i, _ := slices.BinarySearch(cum, rng.Float64()*total)
			counts[min(i, len(ms)-1)]++
		}
		worst := 0.0
		for i, m := range ms {
			worst = math.Max(worst, float64(counts[i])/(float64(k)*float64(m.weight)/total))
		}
		sum += worst
	}
	return sum / 5
}

// optimal is the least share any placement moves between two weighted fleets.
func optimal(before, after []member) float64 {
	share := func(ms []member) map[string]float64 {
		t := 0
		for _, m := range ms {
			t += m.weight
		}
		s := map[string]float64{}
		for _, m := range ms {
			s[m.id] = float64(m.weight) / float64(t)
		}
		return s
	}
	b, a := share(before), share(after)
	sum := 0.0
	for id, s := range a {
		sum += math.Max(s-b[id], 0)
	}
	return sum
}

// TestDistribution measures, for every implementation and 10, 100 and 1000 nodes,
// on real keys: peak/mean with equal weights; max share/expected with weights of 26
// to 126 (weighted implementations only); and keys moved by a leave, a join and a
// reweight divided by the optimum. It prints a markdown table (build time is in
// BenchmarkBuild).
// Each ratio is averaged over the events (sum moved / sum optimal). The "floor"
// column is what a perfect placement shows on the same number of keys: the sampling
// noise under every sampled figure.
func TestDistribution(t *testing.T) {
	k, events, sizes := distSize()
	var rows []string
	for _, n := range sizes {
		eq, cores := equalFleet(n), coreFleet(n)
		rows = append(rows, fmt.Sprintf("| **n=%d** | floor %.3f | floor %.3f | | | |", n, floor(eq, k), floor(cores, k)))
		for _, im := range impls {
			row := measure(t, im, eq, cores, k, events)
			rows = append(rows, row)
		}
	}
	t.Logf("%d keys, %d event(s) per change\n| impl | peak/mean (equal) | max share/expected (26-126) | leave moved/optimal | join moved/optimal | reweight moved/optimal |\n|---|---|---|---|---|---|\n%s",
		k, events, strings.Join(rows, "\n"))
}

// routesToMembers fails t unless every owner is one of ms: an implementation that
// answered "" (or anything else) for every key would otherwise print a table and pass.
func routesToMembers(t *testing.T, name, when string, owners []string, ms []member) {
	t.Helper()
	ids := make(map[string]bool, len(ms))
	for _, m := range ms {
		ids[m.id] = true
	}
	for i, o := range owners {
		if !ids[o] {
			t.Errorf("%s, %s: key %q routed to %q, not a member", name, when, key(i), o)
			return
		}
	}
}

func measure(t *testing.T, im impl, eq, cores []member, k, events int) string {
	n := len(eq)
	base := im.build(eq)
	before := assign(base, k)
	routesToMembers(t, im.name, "equal weights", before, eq)
	_, pm := maxOverExpected(before, eq)

	var lv, lo, jv, jo float64
	for e := range events {
		gone := eq[(e*7919+n/2)%n]
		if im.name == "go-jump" { // jump can only drop its last bucket
			gone = eq[n-1]
		}
		after := assign(im.build(eq).remove(gone.id), k)
		lv += moved(before, after)
		left := slices.DeleteFunc(slices.Clone(eq), func(m member) bool { return m.id == gone.id })
		lo += optimal(eq, left)
		routesToMembers(t, im.name, gone.id+" left", after, left)

		joiner := member{fmt.Sprintf("joiner-%d", e), 100}
		joined := append(slices.Clone(eq), joiner)
		afterJoin := assign(im.build(eq).add(joiner), k)
		jv += moved(before, afterJoin)
		jo += optimal(eq, joined)
		routesToMembers(t, im.name, joiner.id+" joined", afterJoin, joined)
	}
	row := fmt.Sprintf("| %s | %.3f | ", im.name, pm)
	if !im.weighted {
		return row + fmt.Sprintf("n/a | %.3f | %.3f | n/a |", lv/lo, jv/jo)
	}
	wbase := im.build(cores)
	wbefore := assign(wbase, k)
	routesToMembers(t, im.name, "26-126 weights", wbefore, cores)
	worst, _ := maxOverExpected(wbefore, cores)
	var rv, ro float64
	for e := range events {
		m := cores[(e*104729+n/3)%n]
		m.weight = int(math.Round(float64(m.weight) * []float64{1.5, 0.5, 2}[e%3]))
		after := assign(im.build(cores).reweight(m), k)
		routesToMembers(t, im.name, m.id+" reweighted", after, cores)
		rv += moved(wbefore, after)
		changed := slices.Clone(cores)
		for i := range changed {
			if changed[i].id == m.id {
				changed[i] = m
			}
		}
		ro += optimal(cores, changed)
	}
	return row + fmt.Sprintf("%.3f | %.3f | %.3f | %.3f |", worst, lv/lo, jv/jo, rv/ro)
}
