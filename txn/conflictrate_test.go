package txn_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/tierkit/tierkit/txn"
)

// The package doc: ConflictRate is conflicts over committed plus conflicts.
// Other ways a commit ends (too old, failed, unknown, rolled back) are in
// neither term, and a Manager that committed nothing has a rate of 0.
func TestConflictRateIsConflictsOverCommittedPlusConflicts(t *testing.T) {
	for _, tc := range []struct {
		st   txn.ManagerStats
		want float64
	}{
		{txn.ManagerStats{}, 0},
		{txn.ManagerStats{Committed: 2, Conflicts: 2}, 0.5},
		{txn.ManagerStats{Committed: 3, Conflicts: 1}, 0.25},
		{txn.ManagerStats{Conflicts: 4}, 1},
		{txn.ManagerStats{Committed: 5}, 0},
		{txn.ManagerStats{Committed: 1, Conflicts: 1, TooOld: 5, TooLarge: 2,
			Failed: 9, Unknown: 3, RolledBack: 7, Begun: 30}, 0.5},
	} {
		assert.InDelta(t, tc.want, tc.st.ConflictRate(), 1e-12, "%+v", tc.st)
	}
}
