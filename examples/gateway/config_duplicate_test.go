package main

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestConfigDuplicateField: a field given twice in one object, in any case
// (encoding/json matches names without regard to case and keeps the last),
// is refused with an error naming it. Before, the last won silently: a file
// whose "tenants" list was followed by a second, empty one (a merge of two
// files, a template's placeholder) served one open tenant, "default", with
// none of the first list's passwords.
func TestConfigDuplicateField(t *testing.T) {
	for _, tc := range []struct{ json, want string }{
		{`{"tenants": [{"name": "shop", "password": "s3cret"}], "tenants": []}`, `"tenants"`},
		{`{"linger": "1ms", "LINGER": "2ms"}`, `"LINGER"`},
		{`{"limits": {"max_conns": 5, "max_Conns": 6}}`, `"max_Conns"`},
		{`{"tenants": [{"name": "a"}, {"name": "b", "password": "p", "Password": ""}]}`, `"Password"`},
		{`{"backend": {"kind": "redis", "redis": ["127.0.0.1:1"]}, "backend": {}}`, `"backend"`},
	} {
		t.Run(tc.json, func(t *testing.T) {
			_, err := decodeConfig([]byte(tc.json))
			require.ErrorContains(t, err, "twice")
			require.ErrorContains(t, err, tc.want)
		})
	}
	// Equal names in different objects are no duplicates.
	c, err := decodeConfig([]byte(`{"tenants": [{"name": "a", "weight": 2}, {"name": "b", "weight": 3}], "limits": {"max_conns": 5}}`))
	require.NoError(t, err)
	require.Len(t, c.Tenants, 2)
}
