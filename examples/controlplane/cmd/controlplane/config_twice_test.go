package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A config file that names a member twice in one object (in any case:
// encoding/json matches names to fields without regard to case and keeps
// the last) ran the plane with the last one: a second "gateways" list
// dropped the first one's gateways, and {"Kill": true, ..., "kill": false}
// ran with the kill switch off. The API refuses such a body (400), and the
// gateway such a configuration file; so must the plane's file.
func TestConfigFileMemberTwiceRefused(t *testing.T) {
	dir := t.TempDir()
	gw := `{"id": "eu-1", "region": "eu", "resp": "127.0.0.1:6380", "http": "127.0.0.1:6381", "cores": 1}`
	for name, text := range map[string]string{
		"top level":   `{"regions": [{"name": "eu"}], "gateways": [` + gw + `], "gateways": []}`,
		"other case":  `{"regions": [{"name": "eu"}], "cadence": "1s", "Cadence": "5s"}`,
		"nested":      `{"regions": [{"name": "eu"}], "rollout": {"Kill": true, "kill": false}}`,
		"in an array": `{"regions": [{"name": "eu", "backups": [], "Backups": ["us"]}, {"name": "us"}]}`,
	} {
		file := filepath.Join(dir, "plane.json")
		require.NoError(t, os.WriteFile(file, []byte(text), 0o600))
		_, err := parseArgs([]string{"-config", file})
		if assert.Error(t, err, name) {
			assert.Contains(t, err.Error(), "twice", name)
		}
	}
	file := filepath.Join(dir, "plane.json")
	require.NoError(t, os.WriteFile(file, []byte(`{"regions": [{"name": "eu", "backups": ["us"]}, {"name": "us", "backups": ["eu"]}],
		"gateways": [`+gw+`, {"id": "us-1", "region": "us", "resp": "127.0.0.1:6390", "http": "127.0.0.1:6391", "cores": 1}]}`), 0o600))
	fc, err := parseArgs([]string{"-config", file})
	require.NoError(t, err, "the same names in different objects are no repeat")
	assert.Len(t, fc.Gateways, 2)
}
