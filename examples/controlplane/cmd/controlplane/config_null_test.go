package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A config file holding the JSON literal null decoded into the zero config
// without an error: a file truncated or templated to null ran a plane on the
// flags alone, as if no -config had been given. A config file must be one
// JSON object.
func TestConfigFileNullRefused(t *testing.T) {
	dir := t.TempDir()
	for _, text := range []string{"null", " null\n", "\nnull"} {
		file := filepath.Join(dir, "plane.json")
		require.NoError(t, os.WriteFile(file, []byte(text), 0o600))
		_, err := parseArgs([]string{"-config", file, "-region", "eu"})
		if assert.Error(t, err, "%q", text) {
			assert.Contains(t, err.Error(), "want one JSON object", "%q", text)
		}
	}
	file := filepath.Join(dir, "plane.json")
	require.NoError(t, os.WriteFile(file, []byte(" {}\n"), 0o600))
	_, err := parseArgs([]string{"-config", file, "-region", "eu"})
	require.NoError(t, err, "an empty object is a config with every default")
}
