package hashring_test

import (
	"fmt"
	"math"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/hashring"
)

// FuzzRing drives a ring through arbitrary add/remove/reweight/update histories and
// checks the invariants after each step: every slot's owner is a member, every node
// owns floor or ceil of its exact quota, the moved share reported by Stats is the
// number of slots that changed owner, and it is at most the optimum plus one slot per
// node (the rounding band).
func FuzzRing(f *testing.F) {
	f.Add([]byte{0, 10, 0, 200, 0, 3, 1, 0, 2, 1, 7, 3, 0})
	f.Add([]byte{0, 1, 0, 255, 0, 128, 0, 1, 2, 0, 1, 2, 1, 1, 1, 0})
	f.Add([]byte{3, 5, 3, 5, 0, 9, 0, 9, 0, 9, 1, 2, 1, 1})
	f.Fuzz(func(t *testing.T, ops []byte) {
		r, err := hashring.New(hashring.Config{Slots: 1 << 8}, nil)
		require.NoError(t, err)
		next := 0
		ops = ops[:min(len(ops), 128)] // 64 steps: long enough, fast enough
		for len(ops) >= 2 {
			op, arg := ops[0]%4, ops[1]
			ops = ops[2:]
			nodes := r.Nodes()
			var child *hashring.Ring
			switch {
			case op == 0 || len(nodes) == 0:
				child, err = r.Add(hashring.Node{ID: fmt.Sprint("n", next), Weight: float64(arg) + 0.5})
				next++
			case op == 1:
				child, err = r.Remove(nodes[int(arg)%len(nodes)].ID)
			case op == 2:
				child, err = r.Reweight(nodes[int(arg)%len(nodes)].ID, fuzzWeight(arg))
			default:
				nodes[int(arg)%len(nodes)].Weight *= 2
				child, err = r.Update(append(nodes, hashring.Node{ID: fmt.Sprint("u", next), Weight: 1}))
				next++
			}
			require.NoError(t, err)
			checkStep(t, r, child)
			r = child
		}
	})
}

// fuzzWeight maps a byte to a reweight: even bytes to the everyday range
// 0.01-85, odd ones to powers of two from 2^-127 to 2^127, so that tiny and
// huge weights meet ordinary ones on one ring.
func fuzzWeight(arg byte) float64 {
	if arg%2 == 1 {
		return math.Ldexp(1, int(arg)-128)
	}
	return float64(arg)/3 + 0.01
}

func checkStep(t *testing.T, parent, child *hashring.Ring) {
	st := child.Stats()
	if child.Len() == 0 {
		return
	}
	after := owners(t, child)
	for _, id := range after {
		require.True(t, child.Contains(id), "owner %q is a member", id)
	}
	for _, n := range child.Nodes() {
		share, _ := child.Share(n.ID)
		quota := float64(st.Slots) * (n.Weight / st.TotalWeight)
		got := share * float64(st.Slots)
		require.GreaterOrEqual(t, got, math.Floor(quota), n.ID)
		require.LessOrEqual(t, got, math.Ceil(quota), n.ID)
	}
	if parent.Len() == 0 {
		return
	}
	before := owners(t, parent)
	moved := 0
	for s := range after {
		if before[s] != after[s] {
			moved++
		}
	}
	require.InDelta(t, float64(moved)/float64(st.Slots), st.MovedShare, 1e-12)
	slack := float64(max(parent.Len(), child.Len())) / float64(st.Slots)
	require.LessOrEqual(t, st.MovedShare, st.OptimalMovedShare+slack)
}

// mapReporter reports fixed loads.
type mapReporter map[string]int64

func (m mapReporter) Load(id string) int64 { return m[id] }
func (m mapReporter) Total() int64 {
	t := int64(0)
	for _, v := range m {
		t += v
	}
	return t
}

// FuzzLookupBounded feeds arbitrary loads and factors: LookupBounded never panics,
// returns a member, and returns a node below its bound whenever one exists.
func FuzzLookupBounded(f *testing.F) {
	f.Add([]byte{3, 0, 9, 1, 200}, 1.25, uint64(7))
	f.Add([]byte{0, 0, 0}, 1.0, uint64(0))
	f.Add([]byte{255, 255, 255, 255}, 3.5, uint64(1<<63))
	nodes := coreNodes(6, 4)
	r, err := hashring.New(hashring.Config{Slots: 1 << 8}, nodes)
	require.NoError(f, err)
	total := 0.0
	for _, n := range nodes {
		total += n.Weight
	}
	f.Fuzz(func(t *testing.T, loads []byte, c float64, h uint64) {
		rep := mapReporter{}
		for i, l := range loads {
			rep[nodes[i%len(nodes)].ID] += int64(l)
		}
		id, err := r.LookupBoundedHash(h, c, rep)
		if !(c >= 1) || math.IsInf(c, 0) {
			require.ErrorIs(t, err, hashring.ErrBadLoadFactor)
			return
		}
		require.NoError(t, err)
		require.True(t, r.Contains(id))
		fits := func(n hashring.Node) bool {
			return float64(rep[n.ID])+1 <= math.Ceil(c*float64(rep.Total()+1)*n.Weight/total)
		}
		anyFits := false
		for _, n := range nodes {
			anyFits = anyFits || fits(n)
		}
		if anyFits {
			for _, n := range nodes {
				if n.ID == id {
					require.True(t, fits(n), "returned %s over its bound while another node had room", id)
				}
			}
		}
	})
}
