package hashringbench

import (
	"fmt"
	"strings"
	"testing"

	tierkit "github.com/tierkit/tierkit/hashring"
)

// TestTierkitExact prints tierkit's figures computed from the slot table instead of
// sampled keys: a key hashes to each slot with probability 1/Slots, so slot counts
// give the expected share of keys exactly, free of the sampling noise in
// TestDistribution's table (whose 1000-node move ratios rest on ~1000 moved keys per
// event). Each change ratio sums 10 events. It also asserts the targets.
func TestTierkitExact(t *testing.T) {
	var rows []string
	for _, n := range []int{10, 100, 1000} {
		for _, fleet := range []struct {
			name string
			ms   []member
		}{{"equal", equalFleet(n)}, {"26-126", coreFleet(n)}} {
			nodes := make([]tierkit.Node, n)
			for i, m := range fleet.ms {
				nodes[i] = tierkit.Node{ID: m.id, Weight: float64(m.weight)}
			}
			r, err := tierkit.New(tierkit.Config{}, nodes)
			if err != nil {
				t.Fatal(err)
			}
			st := r.Stats()
			var lv, lo, jv, jo, rv, ro float64
			for e := range 10 {
				left, err := r.Remove(nodes[(e*7919+n/2)%n].ID)
				if err != nil {
					t.Fatal(err)
				}
				lv, lo = lv+left.Stats().MovedShare, lo+left.Stats().OptimalMovedShare
				joined, err := r.Add(tierkit.Node{ID: fmt.Sprint("joiner-", e), Weight: float64(26 + 10*e)})
				if err != nil {
					t.Fatal(err)
				}
				jv, jo = jv+joined.Stats().MovedShare, jo+joined.Stats().OptimalMovedShare
				nd := nodes[(e*104729+n/3)%n]
				rw, err := r.Reweight(nd.ID, nd.Weight*[]float64{1.5, 0.5, 2, 0.8, 1.25}[e%5])
				if err != nil {
					t.Fatal(err)
				}
				rv, ro = rv+rw.Stats().MovedShare, ro+rw.Stats().OptimalMovedShare
			}
			rows = append(rows, fmt.Sprintf("| %d | %s | %.4f | %.4f | %.4f | %.4f | %.4f |",
				n, fleet.name, st.PeakToMean, st.MaxShareRatio, lv/lo, jv/jo, rv/ro))
			if st.MaxShareRatio > 1.02 || lv/lo > 1.05 || jv/jo > 1.05 || rv/ro > 1.1 {
				t.Errorf("n=%d %s: a target is missed: %s", n, fleet.name, rows[len(rows)-1])
			}
		}
	}
	t.Logf("tierkit, exact from the slot table (2^18 slots)\n| n | weights | peak/mean | max share/expected | leave moved/optimal | join moved/optimal | reweight moved/optimal |\n|---|---|---|---|---|---|---|\n%s",
		strings.Join(rows, "\n"))
}
