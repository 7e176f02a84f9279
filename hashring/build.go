package hashring

import (
	"cmp"
	"math"
	"slices"
	"strings"
)

// Placement. The table has m slots; node i owns counts[i] of them. The expected
// (exact) count of node i is q_i = m * w_i / W, and every ring keeps
// floor(q_i) <= counts[i] <= ceil(q_i): each node is within one slot of its exact
// share. A new ring is derived from its parent by moving as few slots as that band
// allows: a node keeps its count when the count is still inside its new band, the
// slots of removed nodes and the surplus of nodes above their band go to nodes below
// theirs, and the leftover (the band lets the sum differ from m) is settled on the
// nodes closest to the edge. New is the derivation from the empty ring, so the
// placement is a deterministic function of the Config and the sequence of
// memberships the ring went through.

// orphan marks a slot whose owner left (only while deriving).
const orphan = math.MaxUint16

// checkNodes validates a membership sorted by ID.
func checkNodes(op string, nodes []Node) error {
	if len(nodes) > MaxNodes {
		return ErrTooManyNodes
	}
	total, heaviest := 0.0, 0
	for i, n := range nodes {
		switch {
		case n.ID == "":
			return &NodeError{Op: op, ID: n.ID, Weight: n.Weight, Err: ErrBadID}
		case !(n.Weight > 0) || math.IsInf(n.Weight, 0):
			return &NodeError{Op: op, ID: n.ID, Weight: n.Weight, Err: ErrBadWeight}
		case i > 0 && nodes[i-1].ID == n.ID:
			return &NodeError{Op: op, ID: n.ID, Weight: n.Weight, Err: ErrDuplicateNode}
		}
		total += n.Weight
		if n.Weight > nodes[heaviest].Weight {
			heaviest = i
		}
	}
	if math.IsInf(total, 0) {
		// Name the heaviest node: the weight that pushed the sum over (a
		// reweight's new weight, typically), not whichever ID sorts last.
		h := nodes[heaviest]
		return &NodeError{Op: op, ID: h.ID, Weight: h.Weight, Err: ErrBadWeight}
	}
	return nil
}

// derive builds the child ring with members next (sorted, validated). from[i] is the
// index in r.nodes of next[i], or -1 for a new node.
func (r *Ring) derive(next []Node, from []int) (*Ring, error) {
	m := r.cfg.slots()
	c := &Ring{cfg: r.cfg, nodes: next, derived: len(r.nodes) > 0}
	for _, n := range next {
		c.total += n.Weight
	}
	if len(next) == 0 {
		if c.derived {
			c.moved, c.optimal = m, 1
		}
		return c, nil
	}
	c.shift = shiftFor(m)

	remap := make([]uint16, len(r.nodes)) // parent index -> child index or orphan
	for i := range remap {
		remap[i] = orphan
	}
	cur := make([]int, len(next))
	for i, f := range from {
		if f >= 0 {
			remap[f] = uint16(i)
			cur[i] = int(r.counts[f])
		}
	}
	quota := make([]float64, len(next))
	for i, n := range next {
		quota[i] = float64(m) * (n.Weight / c.total) // w/W <= 1: no overflow
	}
	want := plan(cur, quota, m)
	c.slots = make([]uint16, m)
	if len(r.slots) == 0 {
		fill(c.slots, want)
	} else {
		c.moved = carry(c.slots, r.slots, remap, cur, want)
	}
	c.counts = make([]int32, len(next))
	for i, w := range want {
		c.counts[i] = int32(w)
		c.owners += btoi(w > 0)
	}
	c.optimal = optimalMove(r, c)
	return c, nil
}

// plan returns the target slot counts: each within [floor(quota), ceil(quota)],
// summing to m, and as close to the current counts as that allows.
func plan(cur []int, quota []float64, m int) []int {
	want := make([]int, len(cur))
	sum := 0
	for i, q := range quota {
		want[i] = min(max(cur[i], int(math.Floor(q))), int(math.Ceil(q)))
		sum += want[i]
	}
	if sum == m {
		return want
	}
	// Settle the difference on the nodes furthest on the side to trim: decrement the
	// most over-served, or increment the most under-served. Ties go to the lower index.
	type cand struct {
		excess float64
		i      int
	}
	order := make([]cand, len(cur))
	for i := range order {
		order[i] = cand{float64(want[i]) - quota[i], i}
	}
	sign := 1.0 // most under-served first
	if sum > m {
		sign = -1 // most over-served first
	}
	slices.SortFunc(order, func(a, b cand) int {
		if c := cmp.Compare(sign*a.excess, sign*b.excess); c != 0 {
			return c
		}
		return a.i - b.i
	})
	for pass := 0; sum != m; pass++ {
		for _, o := range order {
			i := o.i
			if sum == m {
				break
			}
			// The first pass respects the band; a later pass (reached only if rounding
			// of the quotas left the band infeasible) relaxes it.
			if sum > m && want[i] > 0 && (pass > 0 || float64(want[i]-1) >= math.Floor(quota[i])) {
				want[i]--
				sum--
			} else if sum < m && (pass > 0 || float64(want[i]+1) <= math.Ceil(quota[i])) {
				want[i]++
				sum++
			}
		}
	}
	return want
}

// fill deals a fresh table: node i gets want[i] consecutive slots, in ID order.
// (Where a node's slots lie does not matter for balance: a uniform hash hits every
// slot alike. Contiguous runs make the fill a sequential write.)
func fill(slots []uint16, want []int) {
	s := 0
	for i, w := range want {
		run := slots[s : s+w]
		for j := range run {
			run[j] = uint16(i)
		}
		s += w
	}
}

// carry copies the parent table old into slots, renaming owners through remap, and
// moves slots so that node i, which owned cur[i], owns want[i]. Slots of removed
// nodes and the first surplus slots of each donor (in slot order) go to the nodes
// below their target, in index order. It returns the number of slots whose
// owner changed.
func carry(slots, old, remap []uint16, cur, want []int) int {
	give := make([]int, len(cur))
	need := 0
	for i := range cur {
		give[i] = max(cur[i]-want[i], 0)
		need += max(want[i]-cur[i], 0)
	}
	pool := make([]int32, 0, need)
	for s, o := range old {
		o = remap[o]
		slots[s] = o
		if o == orphan {
			pool = append(pool, int32(s))
		} else if give[o] > 0 {
			give[o]--
			pool = append(pool, int32(s))
		}
	}
	for i := range want {
		for range max(want[i]-cur[i], 0) {
			slots[pool[0]] = uint16(i)
			pool = pool[1:]
		}
	}
	return need
}

// optimalMove returns the least share any placement must move from p to c: the sum
// of the positive changes of the expected shares.
func optimalMove(p, c *Ring) float64 {
	if len(p.nodes) == 0 {
		return 0
	}
	sum := 0.0
	for i, j := 0, 0; i < len(c.nodes); i++ {
		for j < len(p.nodes) && p.nodes[j].ID < c.nodes[i].ID {
			j++
		}
		was := 0.0
		if j < len(p.nodes) && p.nodes[j].ID == c.nodes[i].ID {
			was = p.nodes[j].Weight / p.total
		}
		sum += max(c.nodes[i].Weight/c.total-was, 0)
	}
	return sum
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// compareID orders nodes by ID.
func compareID(a, b Node) int { return strings.Compare(a.ID, b.ID) }
