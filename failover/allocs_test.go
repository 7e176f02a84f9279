package failover_test

import (
	"strconv"
	"testing"

	"github.com/tierkit/tierkit/failover"
)

// TestPickAllocatesNothing holds the package doc to its word: clients apply the
// table with Table.Pick at 0 allocations, whether the unit leaves home or stays.
func TestPickAllocatesNothing(t *testing.T) {
	tab := &failover.Table{Routes: []failover.Route{
		{From: "b1", To: "a1", Share: 0.2, Mechanism: failover.MechGlobal},
		{From: "b1", To: "b2", Share: 0.3, Mechanism: failover.MechMega},
	}}
	units := make([]string, 64)
	for i := range units {
		units[i] = "client-" + strconv.Itoa(i)
	}
	moved, i := 0, 0
	n := testing.AllocsPerRun(1000, func() {
		if tab.Pick("b1", units[i%len(units)]) != "b1" {
			moved++
		}
		_, _ = tab.PickRoute("a1", units[i%len(units)])
		i++
	})
	if n != 0 {
		t.Errorf("Pick: %v allocations per call, want 0", n)
	}
	if moved == 0 || moved == i {
		t.Errorf("%d of %d picks left home: the test must cover both outcomes", moved, i)
	}
}
