package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A config file was decoded as its first JSON value and the rest ignored: a
// file of two objects (the second with the gateways) or with a stray closing
// brace ran a plane with part of its configuration, without a word.
func TestConfigFileTrailingDataRefused(t *testing.T) {
	dir := t.TempDir()
	for name, text := range map[string]string{
		"two objects": `{"regions": [{"name": "eu"}]}
{"gateways": [{"id": "eu-1", "region": "eu", "resp": "127.0.0.1:6380", "http": "127.0.0.1:6381", "cores": 1}]}`,
		"stray brace": `{"regions": [{"name": "eu"}]}}`,
	} {
		file := filepath.Join(dir, "plane.json")
		require.NoError(t, os.WriteFile(file, []byte(text), 0o600))
		_, err := parseArgs([]string{"-config", file})
		assert.Error(t, err, name)
	}
	file := filepath.Join(dir, "plane.json")
	require.NoError(t, os.WriteFile(file, []byte("{\"regions\": [{\"name\": \"eu\"}]}\n\n"), 0o600))
	fc, err := parseArgs([]string{"-config", file})
	require.NoError(t, err)
	assert.Len(t, fc.Regions, 1)
}
