package hashring_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/hashring"
)

// TestLookupNNeverReturnsSlotlessNodes: a node too light for one slot owns no key
// and is never a replica, also when LookupN's probes miss an owner and the
// rendezvous fallback fills the rest (TestLookupNTinyNode's single owner never
// reaches the fallback). With one-slot nodes among a heavy one, the probes miss
// some of them for many keys; the fallback must pick among the missed owners,
// not the slotless nodes whose scores are higher. Both the narrow draw (up to 16
// replicas) and the wide one are checked.
func TestLookupNNeverReturnsSlotlessNodes(t *testing.T) {
	for _, tiny := range []int{6, 24} {
		nodes := []hashring.Node{{ID: "big", Weight: 200}}
		for i := range tiny {
			nodes = append(nodes, hashring.Node{ID: fmt.Sprint("tiny-", i), Weight: 1})
		}
		for i := range 16 {
			nodes = append(nodes, hashring.Node{ID: fmt.Sprint("dust-", i), Weight: 1e-12})
		}
		r, err := hashring.New(hashring.Config{Slots: 1 << 8}, nodes)
		require.NoError(t, err)
		owning := map[string]bool{}
		for _, n := range nodes {
			share, ok := r.Share(n.ID)
			require.True(t, ok)
			if share > 0 {
				owning[n.ID] = true
			}
		}
		require.Len(t, owning, 1+tiny, "the dust nodes own no slot")
		for k := range 300 {
			key := fmt.Sprint("key-", k)
			got, err := r.LookupN(key, len(nodes))
			require.NoError(t, err)
			require.Len(t, got, len(owning), "%d tiny nodes, key %s", tiny, key)
			for _, id := range got {
				require.True(t, owning[id], "%d tiny nodes, key %s: replica %s owns no slot", tiny, key, id)
			}
		}
	}
}
