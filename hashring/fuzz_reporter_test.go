package hashring_test

import (
	"math"
	"math/big"
	"testing"

	"github.com/cespare/xxhash/v2"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/hashring"
)

// anyReporter is a LoadReporter whose figures need not agree with each other:
// per-node loads and a total picked by the fuzzer, as an adapter over someone
// else's counters (lagging, negative, saturated) may report them.
type anyReporter struct {
	load  map[string]int64
	total int64
}

func (a anyReporter) Load(id string) int64 { return a.load[id] }
func (a anyReporter) Total() int64         { return a.total }

// reporterFigures are the loads and totals the fuzzer picks from.
var reporterFigures = []int64{0, 1, 2, 3, 7, 40, -1, -40, 1 << 40, 1 << 53,
	math.MaxInt64, math.MinInt64, math.MaxInt64 - 1}

func pickFigure(in *opReader) int64 { return reporterFigures[int(in.next())%len(reporterFigures)] }

// FuzzLookupBoundedReporter builds a ring of up to 8 nodes with any valid
// weights (tiny ones that own no slot, huge ones), maybe removes some, and asks
// LookupBounded with any c against a reporter of arbitrary, inconsistent
// figures, for members and for nodes that left. It checks what the doc
// promises for any input: no panic; ErrBadLoadFactor for a bad c; otherwise a
// member of the ring, the same one twice and through LookupBoundedHash; the
// owner when no member reports a load above 0; and, where the bound is exact
// (integer weights, c a multiple of 1/4, figures far below 2^53), a node below
// its bound whenever some member is.
func FuzzLookupBoundedReporter(f *testing.F) {
	f.Add([]byte{4, 0, 1, 1, 2, 2, 3, 3, 4, 0, 0, 1, 1, 2, 3, 0, 9})
	f.Add([]byte{3, 0, 10, 1, 1, 2, 15, 1, 1, 0, 11, 0, 10, 9, 4})
	f.Add([]byte{6, 0, 11, 1, 0, 2, 0, 3, 12, 4, 0, 5, 0, 2, 1, 3, 7, 5, 5, 5, 5, 5, 5, 4})
	f.Fuzz(func(t *testing.T, data []byte) {
		in := &opReader{b: data}
		var nodes []hashring.Node
		for i := range 1 + int(in.next())%8 {
			w := opsWeights[int(in.next())%len(opsWeights)]
			if !(w > 0) || math.IsInf(w, 0) {
				w = 1
			}
			nodes = append(nodes, hashring.Node{ID: opsIDs[1+i], Weight: w})
		}
		r, err := hashring.New(hashring.Config{Slots: 1 << 8}, nodes)
		if err != nil { // weights summing past the float64 maximum
			require.ErrorIs(t, err, hashring.ErrBadWeight)
			return
		}
		for gone := int(in.next()) % 4; gone > 0 && r.Len() > 1; gone-- {
			next, err := r.Remove(r.Nodes()[int(in.next())%r.Len()].ID)
			require.NoError(t, err)
			r = next
		}
		c := opsFactors[int(in.next())%len(opsFactors)]
		lr := anyReporter{load: map[string]int64{}, total: pickFigure(in)}
		for _, n := range nodes { // members and departed nodes alike
			lr.load[n.ID] = pickFigure(in)
		}
		for k := range 4 {
			checkAnyReporter(t, r, string(rune('a'+k))+string(data), c, lr)
		}
	})
}

func checkAnyReporter(t *testing.T, r *hashring.Ring, key string, c float64, lr anyReporter) {
	id, err := r.LookupBounded(key, c, lr)
	again, _ := r.LookupBounded(key, c, lr)
	viaHash, errH := r.LookupBoundedHash(xxhash.Sum64String(key), c, lr)
	require.Equal(t, err, errH)
	require.Equal(t, id, viaHash)
	require.Equal(t, id, again)
	if !(c >= 1) || math.IsInf(c, 0) {
		require.ErrorIs(t, err, hashring.ErrBadLoadFactor, "c = %v", c)
		return
	}
	require.NoError(t, err)
	require.True(t, r.Contains(id), "%q is not a member of %v", id, r.Nodes())
	owner, err := r.Lookup(key)
	require.NoError(t, err)
	idle := true
	for _, n := range r.Nodes() {
		idle = idle && lr.Load(n.ID) <= 0
	}
	if idle {
		require.Equal(t, owner, id, "no member is loaded")
	}
	checkExactBound(t, r, c, lr, id)
}

// checkExactBound checks, where LookupBounded documents its bound as exact, that
// the node returned is below its bound ceil(c (Total+1) w / W) whenever some
// member is.
func checkExactBound(t *testing.T, r *hashring.Ring, c float64, lr anyReporter, id string) {
	small := func(x int64) bool { return x > -(1<<40) && x <= 1<<40 }
	if c*4 != math.Trunc(c*4) || c > 16 || !small(lr.total) {
		return
	}
	nodes := r.Nodes()
	scale := new(big.Rat).SetFloat64(c)
	scale.Mul(scale, new(big.Rat).SetInt64(max(lr.total, 0)+1))
	scale.Quo(scale, new(big.Rat).SetFloat64(r.Stats().TotalWeight))
	fits, got := false, false
	for _, n := range nodes {
		// exact while c x (Total+1) x Weight stays below 2^53
		if n.Weight != math.Trunc(n.Weight) || n.Weight > 1<<20 || !small(lr.Load(n.ID)) ||
			c*float64(max(lr.total, 0)+1)*n.Weight >= 1<<53 {
			return
		}
		x := new(big.Rat).Mul(scale, new(big.Rat).SetFloat64(n.Weight))
		b, rem := new(big.Int).QuoRem(x.Num(), x.Denom(), new(big.Int))
		if rem.Sign() > 0 {
			b.Add(b, big.NewInt(1))
		}
		below := big.NewInt(lr.Load(n.ID)+1).Cmp(b) <= 0
		fits = fits || below
		if n.ID == id {
			got = below
		}
	}
	require.True(t, got || !fits, "%q is at its bound while a member is below its own (c %v)", id, c)
}
