package failover_test

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/failover"
)

// TestTableUnmarshalWrongTypes: a well-formed document whose members have the wrong
// type is a table a client must not apply, as a bad share or mechanism is: its error
// wraps ErrInvalidTable (UnmarshalJSON's doc: it wraps ErrInvalidTable "or is the
// JSON syntax error"), so a client that tells a bad table from a transport failure
// with errors.Is sees it. It was a bare *json.UnmarshalTypeError or time error.
func TestTableUnmarshalWrongTypes(t *testing.T) {
	for _, give := range []string{
		`{"routes": {"from": "a", "to": "b", "share": 0.5, "mechanism": "ring"}}`,
		`{"routes": [{"from": "a", "to": "b", "share": "0.5", "mechanism": "ring"}]}`,
		`{"routes": [{"from": "a", "to": "b", "share": 0.5, "mechanism": 1}]}`,
		`{"run": -1, "routes": []}`,
		`{"run": "7", "routes": []}`,
		`{"now": "yesterday", "routes": []}`,
		`{"routes": [], "regions": [{"Name": "a", "In": "lots"}]}`,
		`{"routes": [], "regions": {}}`,
	} {
		tab := failover.Table{Run: 7}
		err := json.Unmarshal([]byte(give), &tab)
		require.Error(t, err, "%s", give)
		assert.ErrorIs(t, err, failover.ErrInvalidTable, "%s", give)
		assert.Equal(t, uint64(7), tab.Run, "the table is unchanged on error: %s", give)
	}
}
