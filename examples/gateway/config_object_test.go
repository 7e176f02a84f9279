package main

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestConfigMustBeAnObject: a configuration file holds one JSON object. An
// empty file was refused as "EOF", which names neither the file's problem
// nor its fix, and a file holding null (what a template or a converter
// renders for an empty document) was accepted as {} and served the one open
// tenant, "default", to anyone who could connect, as the second, empty
// "tenants" list of TestConfigDuplicateField did.
func TestConfigMustBeAnObject(t *testing.T) {
	for _, tc := range []struct{ json, want string }{
		{"", "empty"},
		{" \n\t", "empty"},
		{"null", "not a JSON object"},
		{" null\n", "not a JSON object"},
		{"[]", "not a JSON object"},
		{`"addr"`, "not a JSON object"},
		{"5", "not a JSON object"},
	} {
		t.Run(tc.json, func(t *testing.T) {
			_, err := decodeConfig([]byte(tc.json))
			require.ErrorContains(t, err, tc.want)
		})
	}
	c, err := decodeConfig([]byte(" {}\n"))
	require.NoError(t, err, "an empty object: every default")
	require.Empty(t, c.Tenants)
}
