package hashring_test

import (
	"fmt"
	"math"
	"os"
	"strconv"
	"testing"

	"github.com/cespare/xxhash/v2"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/hashring"
)

// sampleKeys returns the xxhash of the keys "key-0" ... "key-(n-1)": the real keys the
// balance and movement figures are measured on. TIERKIT_LONG=1 multiplies n by 10.
func sampleKeys(n int) []uint64 {
	if os.Getenv("TIERKIT_LONG") == "1" {
		n *= 10
	}
	hs := make([]uint64, n)
	buf := []byte("key-")
	for i := range hs {
		hs[i] = xxhash.Sum64(strconv.AppendInt(buf[:4], int64(i), 10))
	}
	return hs
}

// assign returns the owner of each key hash.
func assign(t testing.TB, r *hashring.Ring, hs []uint64) []string {
	out := make([]string, len(hs))
	for i, h := range hs {
		id, err := r.LookupHash(h)
		if err != nil {
			t.Fatal(err)
		}
		out[i] = id
	}
	return out
}

// movedShare returns the fraction of keys whose owner differs.
func movedShare(a, b []string) float64 {
	moved := 0
	for i := range a {
		if a[i] != b[i] {
			moved++
		}
	}
	return float64(moved) / float64(len(a))
}

// optimalMove is the least fraction of keys any placement must move between two
// weighted memberships: the sum of the positive changes of expected shares.
func optimalMove(before, after []hashring.Node) float64 {
	share := func(nodes []hashring.Node) map[string]float64 {
		total := 0.0
		for _, n := range nodes {
			total += n.Weight
		}
		m := map[string]float64{}
		for _, n := range nodes {
			m[n.ID] = n.Weight / total
		}
		return m
	}
	b, a := share(before), share(after)
	sum := 0.0
	for id, s := range a {
		sum += math.Max(s-b[id], 0)
	}
	return sum
}

// TestBalance checks the balance targets: every node's exact share (slots owned /
// slots) is within 2% of its expected share, for equal weights and for weights drawn
// from 26 to 126 "cores", at 10, 100 and 1000 nodes. It also checks, on 10^6 real
// keys, that each node's key count is its exact share up to sampling noise (5 sigma):
// the sampled peak/mean itself carries that noise (about 1 + 3.2/sqrt(keys per node)).
func TestBalance(t *testing.T) {
	hs := sampleKeys(1_000_000)
	for _, n := range []int{10, 100, 1000} {
		for _, weighted := range []bool{false, true} {
			nodes := equalNodes(n)
			if weighted {
				nodes = coreNodes(n, uint64(n))
			}
			t.Run(fmt.Sprintf("n=%d/weighted=%v", n, weighted), func(t *testing.T) {
				r, err := hashring.New(hashring.Config{}, nodes)
				require.NoError(t, err)
				st := r.Stats()
				assert.LessOrEqual(t, st.MaxShareRatio, 1.02, "exact max share / expected")
				counts := map[string]int{}
				for _, id := range assign(t, r, hs) {
					counts[id]++
				}
				worst := 0.0
				for _, nd := range nodes {
					share, _ := r.Share(nd.ID)
					mean := share * float64(len(hs))
					sigma := math.Sqrt(mean * (1 - share))
					assert.InDelta(t, mean, float64(counts[nd.ID]), 5*sigma+1, nd.ID)
					expected := nd.Weight / st.TotalWeight * float64(len(hs))
					worst = math.Max(worst, float64(counts[nd.ID])/expected)
				}
				t.Logf("exact: max share/expected %.4f, peak/mean %.4f; sampled over %d keys: max count/expected %.4f",
					st.MaxShareRatio, st.PeakToMean, len(hs), worst)
			})
		}
	}
}

// TestMovement checks the movement targets on real keys, averaged over several
// events: a join or a leave moves at most 1.05x the optimum (the joining or leaving
// node's share), and a weight change at most 1.1x the share it shifts. It also
// checks that a leave moves only the leaving node's keys.
func TestMovement(t *testing.T) {
	hs := sampleKeys(1_000_000)
	const events = 5
	for _, n := range []int{10, 100, 1000} {
		nodes := coreNodes(n, uint64(n)+7)
		t.Run(fmt.Sprintf("n=%d", n), func(t *testing.T) {
			r, err := hashring.New(hashring.Config{}, nodes)
			require.NoError(t, err)
			base := assign(t, r, hs)
			var leave, join, reweight [2]float64 // moved, optimal summed over events
			for e := range events {
				gone := nodes[(e*7919)%n]
				left, err := r.Remove(gone.ID)
				require.NoError(t, err)
				after := assign(t, left, hs)
				for i := range after {
					if after[i] != base[i] {
						require.Equal(t, gone.ID, base[i], "a leave moves only the leaving node's keys")
					}
				}
				leave[0] += movedShare(base, after)
				leave[1] += optimalMove(nodes, left.Nodes())

				joined, err := r.Add(hashring.Node{ID: fmt.Sprint("new-", e), Weight: float64(26 + 25*e)})
				require.NoError(t, err)
				join[0] += movedShare(base, assign(t, joined, hs))
				join[1] += optimalMove(nodes, joined.Nodes())

				nd := nodes[(e*104729+3)%n]
				factor := []float64{0.5, 1.5, 2, 0.8, 1.25}[e]
				rw, err := r.Reweight(nd.ID, nd.Weight*factor)
				require.NoError(t, err)
				reweight[0] += movedShare(base, assign(t, rw, hs))
				reweight[1] += optimalMove(nodes, rw.Nodes())
			}
			t.Logf("moved/optimal over %d keys: leave %.4f, join %.4f, reweight %.4f",
				len(hs), leave[0]/leave[1], join[0]/join[1], reweight[0]/reweight[1])
			assert.LessOrEqual(t, leave[0]/leave[1], 1.05)
			assert.LessOrEqual(t, join[0]/join[1], 1.05)
			assert.LessOrEqual(t, reweight[0]/reweight[1], 1.1)
		})
	}
}

// TestMovementStaysMinimalOverHistory applies a long random history and checks the
// exact (slot-counted) movement of every step, and that balance never drifts.
func TestMovementStaysMinimalOverHistory(t *testing.T) {
	r, err := hashring.New(hashring.Config{Slots: 1 << 16}, coreNodes(40, 9))
	require.NoError(t, err)
	next := 0
	for step := range 300 {
		nodes := r.Nodes()
		var err error
		switch step % 3 {
		case 0:
			r, err = r.Remove(nodes[(step*31)%len(nodes)].ID)
		case 1:
			r, err = r.Add(hashring.Node{ID: fmt.Sprint("joiner-", next), Weight: float64(26 + step%101)})
			next++
		default:
			nd := nodes[(step*17)%len(nodes)]
			r, err = r.Reweight(nd.ID, float64(26+(step*13)%101))
		}
		require.NoError(t, err)
		st := r.Stats()
		// Within one slot per node of the optimum, and balanced within one slot.
		slack := float64(st.Nodes) / float64(st.Slots)
		require.LessOrEqual(t, st.MovedShare, st.OptimalMovedShare+slack, "step %d", step)
		require.LessOrEqual(t, st.MaxShareRatio, 1.02, "step %d", step)
	}
}
