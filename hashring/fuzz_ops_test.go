package hashring_test

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/hashring"
)

// FuzzRingOps drives arbitrary operation sequences, valid or not: New, Add,
// Remove, Reweight and Update with any IDs of a small pool (the empty one,
// members, absent ones, the same one twice) and any weights of a table of edge
// values (0, -0, negative, NaN, ±Inf, subnormal, huge); Lookup and LookupN with
// any n; bounded-load lookups with any c against a Loads that sees arbitrary
// Acquire, Release (more than acquired too) and Forget sequences; and
// encode/decode of the current ring. After every step it checks that a failed
// call returned one of the documented typed errors that apply, that a new ring
// keeps the invariants of FuzzRing, that no ring seen before answers
// differently, that LookupN gives min(n, slot owners) distinct nodes with the
// owner first, that Loads counts as documented, and that a bounded lookup
// follows the rule of LookupBounded.
func FuzzRingOps(f *testing.F) {
	// Errors: a bad Config, a bad ID, a bad weight, duplicates, an absent ID,
	// a sum of weights that overflows.
	f.Add([]byte{0, 4, 1, 1, 0, 0, 0, 3, 3, 1, 0, 2, 20, 1, 1, 2, 1, 1, 2, 2, 5, 2,
		3, 9, 0, 4, 2, 1, 16, 2, 15, 6, 0, 2, 6, 0, 12, 10, 0, 9, 0, 1, 11, 3, 5})
	// 40 members, LookupN up to all of them, a hot key spilling under c = 1.
	f.Add([]byte{5, 23, 0, 0, 5, 15, 24, 1, 6, 1, 12, 6, 2, 9, 6, 3, 7,
		10, 7, 0, 12, 31, 10, 7, 0, 12, 31, 10, 8, 1, 4, 31, 6, 4, 10})
	// Tiny and huge weights, loads released more than acquired and forgotten.
	f.Add([]byte{5, 7, 0, 134, 7, 1, 3, 8, 1, 3, 8, 1, 3, 9, 1, 0, 7, 41, 2, 10, 5, 5, 4, 20,
		3, 2, 11, 10, 9, 2, 6, 15, 6, 5, 12, 11, 7, 1, 2, 5, 1, 10, 7, 1, 13, 8})
	// 40 members, half of them lighter than a slot: LookupN's probes miss some
	// (more of them with 2^10 slots).
	f.Add([]byte{5, 23, 0, 32, 5, 15, 24, 32, 6, 1, 12, 6, 2, 12, 6, 3, 12, 6, 4, 12,
		6, 5, 12, 6, 6, 12, 6, 7, 12, 6, 8, 12, 6, 9, 11, 6, 10, 10, 6, 11, 9})
	f.Add([]byte{0, 2, 0, 5, 23, 0, 32, 5, 15, 24, 32, 6, 1, 12, 6, 2, 12, 6, 3, 12,
		6, 4, 12, 6, 5, 12, 6, 6, 11, 6, 7, 10, 6, 8, 9, 10, 9, 1, 4, 31})
	// Immutability across Remove and Update, and the nil reporters.
	f.Add([]byte{0, 1, 3, 1, 0, 2, 3, 3, 4, 2, 2, 1, 2, 4, 2, 2, 1, 5, 0, 10, 3, 1, 5, 3,
		10, 3, 2, 2, 3, 6, 9, 12, 4, 0})
	f.Fuzz(func(t *testing.T, ops []byte) {
		checkZeroRing(t)
		s := newOpsState(t)
		in := &opReader{b: ops[:min(len(ops), 256)]}
		for step := 0; step < 64 && !in.done(); step++ {
			s.step(in)
		}
	})
}

// opReader hands out the fuzz input a byte at a time, zeros once it runs out.
type opReader struct{ b []byte }

func (r *opReader) done() bool { return len(r.b) == 0 }

func (r *opReader) next() byte {
	if len(r.b) == 0 {
		return 0
	}
	c := r.b[0]
	r.b = r.b[1:]
	return c
}

// opsIDs is the pool of node IDs: the empty (bad) ID and 40 names, enough for
// LookupN draws of more than 16 replicas.
var opsIDs = func() []string {
	ids := []string{""}
	for i := range 40 {
		ids = append(ids, fmt.Sprintf("n%02d", i))
	}
	return ids
}()

// opsWeights are the weights the fuzzer picks from: ordinary, fractional,
// subnormal, huge, and the invalid ones.
var opsWeights = []float64{
	1, 2, 3, 26, 126, 0.5, 0.1, 1.0 / 3, 255, 1 << 20,
	math.SmallestNonzeroFloat64, 0x1p-1022, 1e-300, 0x1p-127, 0x1p127, 1e308,
	math.MaxFloat64, 0, math.Copysign(0, -1), -1, math.NaN(), math.Inf(1), math.Inf(-1),
}

// opsFactors are the load factors c: valid ones (with c*(Total+1) exact or
// not), and invalid ones.
var opsFactors = []float64{
	1, 1.25, 1.5, 2, 1.1, 3.7, 1 + 0x1p-52, 1e300,
	0.999, 0, -1, math.NaN(), math.Inf(1), math.Inf(-1),
}

// opsCounts are the replica counts n given to LookupN.
var opsCounts = []int{math.MinInt, -1, 0, 1, 2, 3, 5, 16, 17, 20, 40, 64, math.MaxInt}

// opsSlots are the Config.Slots given to New: small valid ones, and invalid ones.
var opsSlots = []int{1 << 8, 1 << 9, 1 << 10, 1 << 8, 100, 3 << 8, 1 << 25, -256}

func pickID(in *opReader) string      { return opsIDs[int(in.next())%len(opsIDs)] }
func pickWeight(in *opReader) float64 { return opsWeights[int(in.next())%len(opsWeights)] }

func pickNodes(in *opReader) []hashring.Node {
	nodes := make([]hashring.Node, int(in.next())%6)
	for i := range nodes {
		nodes[i] = hashring.Node{ID: pickID(in), Weight: pickWeight(in)}
	}
	return nodes
}

// growNodes returns up to 24 nodes of the pool that are not members, with
// valid weights: 26 or 126 (so that every node owns slots), 1 or 126 (so that
// the light ones own one slot or none, and LookupN's probes can miss them), any
// ordinary one, or also tiny and huge ones (whose sum may overflow).
func growNodes(r *hashring.Ring, in *opReader) []hashring.Node {
	k, at, w := 1+int(in.next()%24), int(in.next()), int(in.next())
	var nodes []hashring.Node
	for i := range len(opsIDs) - 1 {
		id := opsIDs[1+(at+i)%(len(opsIDs)-1)]
		if len(nodes) == k || r.Contains(id) {
			continue
		}
		var weight float64
		switch {
		case w < 32:
			weight = []float64{26, 126}[(w+i)%2]
		case w < 64:
			weight = []float64{1, 126}[(w+i)%2]
		case w < 128:
			weight = opsWeights[(w+i*7)%10] // opsWeights[:10] are ordinary
		default:
			weight = opsWeights[(w+i*7)%17] // [10:17] tiny or huge
		}
		nodes = append(nodes, hashring.Node{ID: id, Weight: weight})
	}
	return nodes
}

// opsState is the state of one fuzz run: the current ring, the rings seen before
// with their answers, and a Loads with its model.
type opsState struct {
	t     *testing.T
	r     *hashring.Ring
	snaps []ringSnap
	loads *hashring.Loads
	model loadsModel
}

func newOpsState(t *testing.T) *opsState {
	r, err := hashring.New(hashring.Config{Slots: 1 << 8}, nil)
	require.NoError(t, err)
	s := &opsState{t: t, r: r, loads: new(hashring.Loads), model: loadsModel{inFlight: map[string]int64{}}}
	s.snaps = append(s.snaps, snapRing(t, r))
	return s
}

func (s *opsState) step(in *opReader) {
	switch op := in.next() % 12; op {
	case 0, 1, 2, 3, 4, 5:
		s.derive(op, in)
	case 6:
		checkLookups(s.t, s.r, fmt.Sprint("k", in.next()), opsCounts[int(in.next())%len(opsCounts)])
	case 7, 8, 9:
		s.model.apply(s.t, s.loads, op-7, pickID(in), 1+int(in.next()%4))
		s.model.check(s.t, s.loads)
	case 10:
		s.bounded(in)
	default:
		checkRoundTripAny(s.t, s.r)
		checkCorrupt(s.t, s.r, in.next(), in.next())
	}
}

// derive applies a membership operation and checks its result, and that no
// ring seen before changed.
func (s *opsState) derive(op byte, in *opReader) {
	t, r := s.t, s.r
	var (
		child  *hashring.Ring
		err    error
		want   errSet
		parent = r
	)
	switch op {
	case 0:
		cfg := hashring.Config{Slots: opsSlots[int(in.next())%len(opsSlots)]}
		nodes := pickNodes(in)
		child, err = hashring.New(cfg, nodes)
		parent = &hashring.Ring{}
		if m := cfg.Slots; m < 1<<8 || m > 1<<24 || m&(m-1) != 0 {
			require.ErrorIs(t, err, hashring.ErrInvalidConfig)
			require.Nil(t, child)
			s.checkSnaps()
			return
		}
		want = membershipErrs("new", nodes)
	case 1:
		nodes := pickNodes(in)
		child, err = r.Add(nodes...)
		want = membershipErrs("add", append(r.Nodes(), nodes...))
		for _, n := range nodes {
			if r.Contains(n.ID) {
				want.add(hashring.ErrDuplicateNode, n.ID)
			}
		}
	case 2:
		ids := make([]string, int(in.next())%4)
		for i := range ids {
			ids[i] = pickID(in)
		}
		child, err = r.Remove(ids...)
		want = removeErrs(r, ids)
	case 3:
		id, w := pickID(in), pickWeight(in)
		child, err = r.Reweight(id, w)
		want = reweightErrs(r, id, w)
	case 4:
		nodes := pickNodes(in)
		child, err = r.Update(nodes)
		want = membershipErrs("update", nodes)
	default: // many new members at once, so that LookupN draws more than 16
		nodes := growNodes(r, in)
		child, err = r.Add(nodes...)
		want = membershipErrs("add", append(r.Nodes(), nodes...))
	}
	want.check(t, err)
	if err == nil {
		checkStep(t, parent, child)
		checkRoundTripAny(t, child)
		s.r = child
		s.snaps = append(s.snaps, snapRing(t, child))
		if len(s.snaps) > 6 {
			s.snaps = s.snaps[1:]
		}
	} else {
		require.Nil(t, child)
	}
	s.checkSnaps()
}

// checkSnaps checks that every ring seen before still answers as it did.
func (s *opsState) checkSnaps() {
	for _, sn := range s.snaps {
		require.Equal(s.t, sn, snapRing(s.t, sn.r), "a ring changed after another was derived")
	}
}

// errSet is the set of documented errors a membership call may return, each
// with the IDs its *NodeError may name.
type errSet struct {
	op  string
	ids map[error][]string
}

func (e *errSet) add(sentinel error, id string) {
	if e.ids == nil {
		e.ids = map[error][]string{}
	}
	e.ids[sentinel] = append(e.ids[sentinel], id)
}

func (e errSet) check(t *testing.T, err error) {
	if len(e.ids) == 0 {
		require.NoError(t, err, "%s", e.op)
		return
	}
	require.Error(t, err, "%s: want one of %v", e.op, e.ids)
	var ne *hashring.NodeError
	require.True(t, errors.As(err, &ne), "%s: %v is not a *NodeError", e.op, err)
	require.Equal(t, e.op, ne.Op, "%v", err)
	ids, ok := e.ids[ne.Err]
	require.True(t, ok, "%s: %v is none of %v", e.op, err, e.ids)
	require.True(t, errors.Is(err, ne.Err), "%v", err)
	require.Contains(t, ids, ne.ID, "%s: %v names the wrong node", e.op, err)
	require.NotEmpty(t, err.Error())
}

// membershipErrs returns the errors that validating nodes as a membership may
// give: an empty ID, a bad weight, a duplicate ID, or weights summing to +Inf.
func membershipErrs(op string, nodes []hashring.Node) errSet {
	e := errSet{op: op}
	seen := map[string]bool{}
	for _, n := range nodes {
		if n.ID == "" {
			e.add(hashring.ErrBadID, n.ID)
		}
		if !(n.Weight > 0) || math.IsInf(n.Weight, 0) {
			e.add(hashring.ErrBadWeight, n.ID)
		}
		if seen[n.ID] {
			e.add(hashring.ErrDuplicateNode, n.ID)
		}
		seen[n.ID] = true
	}
	if len(e.ids) > 0 {
		return e
	}
	sorted := slices.Clone(nodes) // summed in ID order, as New sums them
	slices.SortFunc(sorted, func(a, b hashring.Node) int { return strings.Compare(a.ID, b.ID) })
	total, heaviest := 0.0, 0.0
	for _, n := range sorted {
		total += n.Weight
		heaviest = max(heaviest, n.Weight)
	}
	if math.IsInf(total, 0) {
		for _, n := range nodes {
			if n.Weight == heaviest {
				e.add(hashring.ErrBadWeight, n.ID)
			}
		}
	}
	return e
}

func removeErrs(r *hashring.Ring, ids []string) errSet {
	e := errSet{op: "remove"}
	seen := map[string]bool{}
	for _, id := range ids {
		if !r.Contains(id) || seen[id] {
			e.add(hashring.ErrUnknownNode, id)
		}
		seen[id] = true
	}
	return e
}

func reweightErrs(r *hashring.Ring, id string, w float64) errSet {
	if !r.Contains(id) {
		e := errSet{op: "reweight"}
		e.add(hashring.ErrUnknownNode, id)
		return e
	}
	nodes := r.Nodes()
	for i := range nodes {
		if nodes[i].ID == id {
			nodes[i].Weight = w
		}
	}
	return membershipErrs("reweight", nodes)
}
