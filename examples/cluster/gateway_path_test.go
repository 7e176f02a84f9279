package main

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestGatewayBinRelativeName: "-gateway gw", a gateway built into the
// working directory (go build -o gw ./gateway), was passed to exec as a
// bare name, which exec looks up in PATH only: the command started the
// dashboard and the shards, then failed with "executable file not found
// in $PATH" (or would have run another program of that name found there).
// The flag names a file; a relative one is taken from the working
// directory now. Here "gw" is a stand-in that says it ran and exits.
// Found by a review.
func TestGatewayBinRelativeName(t *testing.T) {
	dir := t.TempDir()
	script := "#!/bin/sh\necho the gw of the working directory ran >&2\nexit 1\n"
	require.NoError(t, os.WriteFile(filepath.Join(dir, "gw"), []byte(script), 0o700))
	t.Chdir(dir)
	c, err := Start(context.Background(), Spec{HTTP: "127.0.0.1:0", GatewayBin: "gw", Shards: 1})
	require.Error(t, err)
	assert.Nil(t, c)
	assert.ErrorContains(t, err, "the gw of the working directory ran")
	assert.NotContains(t, err.Error(), "$PATH")
}
