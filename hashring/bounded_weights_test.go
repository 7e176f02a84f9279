package hashring_test

import (
	"fmt"
	"math"
	"testing"

	"github.com/tierkit/tierkit/hashring"
)

// TestLookupBoundedTinyWeights: weights are any finite numbers > 0, and the
// bound depends on them only through their shares. With weights so small
// that c*(Total+1)/TotalWeight overflows, every bound came out infinite and
// LookupBounded returned the owner however loaded it was.
func TestLookupBoundedTinyWeights(t *testing.T) {
	for _, w := range []float64{1, 1e-300, 1e-310, math.SmallestNonzeroFloat64} {
		nodes := []hashring.Node{{ID: "a", Weight: w}, {ID: "b", Weight: w}, {ID: "c", Weight: w}}
		r, err := hashring.New(hashring.Config{Slots: 1 << 8}, nodes)
		if err != nil {
			t.Fatal(err)
		}
		owner, _ := r.Lookup("k")
		loads := mapReporter{owner: 100} // the bound is ceil(1.25 * 101 / 3) = 43
		id, err := r.LookupBounded("k", 1.25, loads)
		if err != nil {
			t.Fatal(err)
		}
		if id == owner {
			t.Errorf("weights %g: got the owner %s with 100 in flight, over its bound of 43", w, id)
		}
	}
}

// behindTotal reports 10 in flight on one node and a total of 5, as
// [hashring.Loads] can between a counter's increment and the total's.
type behindTotal struct{ busy string }

func (l behindTotal) Load(id string) int64 {
	if id == l.busy {
		return 10
	}
	return 0
}
func (behindTotal) Total() int64 { return 5 }

// TestLookupBoundedUnderflowingShare: a node whose share of the weight
// underflows to 0 still has a bound of ceil(c*(Total+1)*share) = 1, the ceiling
// of a positive number. The bound came out 0, so an idle such node never fit:
// with the heavy node full, the fallback returned the heavy node, over its
// bound of ceil(1.25*6) = 8, instead of the idle node below its bound.
func TestLookupBoundedUnderflowingShare(t *testing.T) {
	nodes := []hashring.Node{{ID: "heavy", Weight: 1e30}, {ID: "tiny", Weight: 1e-300}}
	r, err := hashring.New(hashring.Config{Slots: 1 << 8}, nodes)
	if err != nil {
		t.Fatal(err)
	}
	if share, _ := r.Share("tiny"); share != 0 {
		t.Fatalf("tiny owns a share of %g, want none", share)
	}
	for i := range 20 {
		key := fmt.Sprint("k", i)
		id, err := r.LookupBounded(key, 1.25, behindTotal{busy: "heavy"})
		if err != nil {
			t.Fatal(err)
		}
		if id != "tiny" {
			t.Errorf("%s: got %s with 10 in flight over its bound of 8; tiny is idle, below its bound of 1", key, id)
		}
	}
}
