package failover_test

import (
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/failover"
)

// TestNewTableLeavesRoutesAlone pins "routes is not modified" of NewTable: the
// caller's unsorted slice keeps its order, and the table does not share it, so
// a later change to the caller's slice does not reach the table's routes.
func TestNewTableLeavesRoutesAlone(t *testing.T) {
	give := []failover.Route{
		{From: "b1", To: "a1", Share: 0.2, Mechanism: failover.MechGlobal},
		{From: "a2", To: "a3", Share: 0.1, Mechanism: failover.MechRing},
		{From: "a2", To: "a1", Share: 0.3, Mechanism: failover.MechRing},
	}
	orig := slices.Clone(give)
	tab, err := failover.NewTable(t0, 1, give)
	require.NoError(t, err)
	require.Equal(t, orig, give, "NewTable reordered the caller's routes")

	want := slices.Clone(tab.Routes)
	for i := range give {
		give[i].Share = 1
	}
	require.Equal(t, want, tab.Routes, "the table shares the caller's slice")
}
