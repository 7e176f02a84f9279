package client_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestRawFilesNameTheirCommand: each raw file the README quotes figures from
// starts with a header line giving the command that produced it, the one
// the README names for it.
func TestRawFilesNameTheirCommand(t *testing.T) {
	readme := readFile(t, "README.md")
	for file, cmd := range map[string]string{
		"bench_route.txt":           "go test -run '^$' -bench Route -benchmem -count 6 ./client/",
		"testdata/readme_tests.txt": "go test -race -count=1 -v\n-run 'TestGatewayLostMidLoad|TestWeightsFollowPublishedRing|TestSwapRoutesUnderLoad'\n./client/",
	} {
		assert.Contains(t, readme, cmd, "the README names the command of %s", file)
		first, _, _ := strings.Cut(readFile(t, file), "\n")
		require.True(t, strings.HasPrefix(first, "# "), "%s: the first line is no header: %q", file, first)
		assert.Contains(t, first, strings.ReplaceAll(cmd, "\n", " "), "%s: the header names its command", file)
	}
}
