package hashring_test

import (
	"fmt"
	"math/big"
	"testing"

	"github.com/tierkit/tierkit/hashring"
)

// ownerLoad reports load on one node and a given total.
type ownerLoad struct {
	owner       string
	load, total int64
}

func (o ownerLoad) Load(id string) int64 {
	if id == o.owner {
		return o.load
	}
	return 0
}
func (o ownerLoad) Total() int64 { return o.total }

// ceilRat returns ceil(c * n / d) computed exactly.
func ceilRat(c float64, n, d int64) int64 {
	r := new(big.Rat).SetFloat64(c)
	r.Mul(r, big.NewRat(n, d))
	q, m := new(big.Int).QuoRem(r.Num(), r.Denom(), new(big.Int))
	if m.Sign() > 0 {
		q.Add(q, big.NewInt(1))
	}
	return q.Int64()
}

// TestLookupBoundedBoundIsExact: with equal integer weights, the bound is
// ceil(c x (Total+1) / nodes) exactly. It was computed as c*(Total+1) times the
// rounded share 1/nodes, which can land just above an integer: with 75 nodes,
// c = 1 and 525 requests counting this one, the bound came out 8 instead of 7,
// and an owner already holding 7 took an 8th.
func TestLookupBoundedBoundIsExact(t *testing.T) {
	for _, n := range []int{3, 7, 10, 49, 75, 99} {
		for _, w := range []float64{1, 26} {
			nodes := make([]hashring.Node, n)
			for i := range nodes {
				nodes[i] = hashring.Node{ID: fmt.Sprintf("n%03d", i), Weight: w}
			}
			r, err := hashring.New(hashring.Config{Slots: 1 << 8}, nodes)
			if err != nil {
				t.Fatal(err)
			}
			owner, _ := r.Lookup("k")
			for _, c := range []float64{1, 1.25, 1.5, 2} {
				for total := int64(0); total < 800; total++ {
					bound := ceilRat(c, total+1, int64(n))
					if bound > total {
						continue // the owner cannot hold bound requests of total
					}
					full := ownerLoad{owner, bound, total} // load+1 > bound: must spill
					if id, _ := r.LookupBounded("k", c, full); id == owner {
						t.Fatalf("%d nodes of weight %v, c=%v, %d in flight: owner holding %d got one more, bound is %d",
							n, w, c, total, bound, bound)
					}
					room := ownerLoad{owner, bound - 1, total} // load+1 == bound: stays
					if id, _ := r.LookupBounded("k", c, room); id != owner {
						t.Fatalf("%d nodes of weight %v, c=%v, %d in flight: owner holding %d refused, bound is %d",
							n, w, c, total, bound-1, bound)
					}
				}
			}
		}
	}
}
