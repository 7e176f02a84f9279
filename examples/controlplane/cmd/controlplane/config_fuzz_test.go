package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// FuzzConfigFile: the -config file is whatever the operator wrote. A file
// parseArgs accepts is one JSON value and nothing after it (a file whose
// tail was ignored ran a plane with part of its configuration), and the
// config read from it, written back as JSON, reads back the same: no
// setting is lost or altered between the file and the plane.
func FuzzConfigFile(f *testing.F) {
	for _, s := range []string{
		`{}`,
		`{"listen": "127.0.0.1:7070", "cadence": "500ms",
		  "regions": [{"name": "eu", "backups": ["us"]}, {"name": "us", "backups": ["eu"]}],
		  "gateways": [{"id": "eu-1", "region": "eu", "resp": "127.0.0.1:6380", "http": "127.0.0.1:6381", "cores": 1}],
		  "direct": ["127.0.0.1:7000"], "allowed_hosts": ["localhost", "::1"],
		  "rollout": {"Rules": [{"Service": "app", "Percent": 50}]}}`,
		`{"regions": [{"name": "eu"}]}}`,
		`{"regions": [{"name": "eu"}]} {"direct": []}`,
		`{"listen": "", "Direct": null, "gateways": [{"cores": 1e300}]}`,
		`{"unknown": 1}`,
		`null`,
		"{\"regions\": [{\"name\": \"eu\"}]}\n\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		file := filepath.Join(t.TempDir(), "plane.json")
		require.NoError(t, os.WriteFile(file, data, 0o600))
		fc, err := parseArgs([]string{"-config", file})
		if err != nil {
			return
		}
		require.True(t, json.Valid(data), "accepted a file that is not one JSON value: %q", data)
		out, err := json.Marshal(fc)
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(file, out, 0o600))
		again, err := parseArgs([]string{"-config", file})
		require.NoError(t, err, "its own config written back is refused: %s", out)
		back, err := json.Marshal(again)
		require.NoError(t, err)
		// As JSON: an empty list the file spelled [] and one it left out
		// (omitempty) are the same setting.
		require.JSONEq(t, string(out), string(back), "config changed on the way back")
	})
}
