package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestZeroCadenceRefused: "-cadence 0s" (or "cadence": "0s" in the file)
// ran the plane at the default 1s, since Config's zero Cadence is the
// default, while a negative cadence was refused. A zero is refused too, as
// bad usage. Found by a review.
func TestZeroCadenceRefused(t *testing.T) {
	file := filepath.Join(t.TempDir(), "plane.json")
	require.NoError(t, os.WriteFile(file, []byte(`{"cadence": "0s"}`), 0o600))
	for _, args := range [][]string{{"-cadence", "0s"}, {"-cadence", "0"}, {"-config", file}} {
		_, err := runExpectStatus(t, 2, append([]string{"-listen", "127.0.0.1:0", "-region", "eu"}, args...)...)
		assert.ErrorContains(t, err, "want > 0", "%q", args)
	}
}
