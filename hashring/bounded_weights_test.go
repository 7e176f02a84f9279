package hashring_test

import (
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
