package main

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestHTTPPortOutOfRangeIsUsageError: an -http port that is no port
// (127.0.0.1:99999, localhost:-1) passed parseFlags, whose check split the
// address but left its port unread, and was refused by the listen in Start:
// the command exited 1, the status of a failed scenario, instead of 2, that
// of bad usage, as for any other malformed -http. Found by a review.
func TestHTTPPortOutOfRangeIsUsageError(t *testing.T) {
	for _, addr := range []string{"127.0.0.1:99999", "localhost:-1", "[::1]:65536", "127.0.0.1:x y"} {
		var errOut bytes.Buffer
		_, err := parseFlags([]string{"-http", addr}, &errOut)
		require.Error(t, err, "-http %s", addr)
		assert.Contains(t, errOut.String(), "cluster: dashboard address", "-http %s", addr)
	}
	for _, addr := range []string{"127.0.0.1:0", "127.0.0.1:65535", "localhost:7070", "[::1]:7070"} {
		_, err := parseFlags([]string{"-http", addr}, &bytes.Buffer{})
		assert.NoError(t, err, "-http %s", addr)
	}
}
