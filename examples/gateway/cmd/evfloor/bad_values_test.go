//go:build linux

package main

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestBadValuesAreUsageErrors: an -addr the loop cannot listen on (a name,
// no port, a port out of range) and an empty -redis shard were accepted by
// the flags and failed later through log.Fatal, exit status 1 (the empty
// shard as "dial tcp: missing address"), where bad usage exits 2. They are
// refused by parseFlags, naming the flag. Found by a review.
func TestBadValuesAreUsageErrors(t *testing.T) {
	for _, tc := range []struct {
		args []string
		says string
	}{
		{[]string{"-addr", "localhost:7398"}, `-addr "localhost:7398"`},
		{[]string{"-addr", "127.0.0.1"}, `-addr "127.0.0.1"`},
		{[]string{"-addr", "127.0.0.1:70000"}, `-addr "127.0.0.1:70000"`},
		{[]string{"-addr", "[::1]:7398"}, `-addr "[::1]:7398": "::1" is not an IPv4 address`},
		{[]string{"-redis", ""}, `-redis "": shard 0 has no address`},
		{[]string{"-redis", "127.0.0.1:1,,127.0.0.1:2"}, `-redis "127.0.0.1:1,,127.0.0.1:2": shard 1 has no address`},
	} {
		var errOut bytes.Buffer
		_, _, err := parseFlags(tc.args, &errOut)
		require.Error(t, err, "%q", tc.args)
		assert.Contains(t, errOut.String(), "evfloor: "+tc.says, "%q", tc.args)
	}
	for _, addr := range []string{"127.0.0.1:0", "0.0.0.0:7398", "127.0.0.1:65535"} {
		_, _, err := parseFlags([]string{"-addr", addr}, &bytes.Buffer{})
		require.NoError(t, err, addr)
	}
}
