package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// encoding/json decodes a byte that is not UTF-8, and an escape of half a
// surrogate pair, as U+FFFD: a config file written in another encoding ran
// the plane with gateway IDs and region names it never held (the plane's
// own UTF-8 checks saw only the decoded strings), and two such names became
// one. The API refuses such a body, and the gateway such a configuration
// file; so must the plane's file.
func TestConfigFileNotUTF8Refused(t *testing.T) {
	dir := t.TempDir()
	for name, text := range map[string]string{
		"latin-1 byte": "{\"regions\": [{\"name\": \"z\xfcrich\"}]}",
		"lone escape":  `{"regions": [{"name": "eu\ud800"}]}`,
	} {
		file := filepath.Join(dir, "plane.json")
		require.NoError(t, os.WriteFile(file, []byte(text), 0o600))
		fc, err := parseArgs([]string{"-config", file})
		assert.Error(t, err, "%s: read as %+v", name, fc.Regions)
	}
	file := filepath.Join(dir, "plane.json")
	require.NoError(t, os.WriteFile(file, []byte(`{"regions": [{"name": "zürich"}, {"name": "\ud83d\ude00"}]}`), 0o600))
	fc, err := parseArgs([]string{"-config", file})
	require.NoError(t, err, "UTF-8 and whole surrogate pairs are fine")
	assert.Equal(t, "zürich", fc.Regions[0].Name)
}
