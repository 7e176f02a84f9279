package main

import (
	"io"
	"net"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestMaxArgsKeepsConnection: a command over max_args answers an error and
// the connection stays open, as the README says (unlike a command over
// max_request_bytes, which closes it).
func TestMaxArgsKeepsConnection(t *testing.T) {
	in := startGateway(t, Config{HTTPAddr: "-", Limits: Limits{MaxArgs: 3}})
	c, err := net.Dial("tcp", in.Addr())
	require.NoError(t, err)
	defer c.Close()
	require.NoError(t, c.SetDeadline(time.Now().Add(5*time.Second)))
	_, err = c.Write([]byte("MGET a b c\r\nPING\r\nQUIT\r\n"))
	require.NoError(t, err)
	out, err := io.ReadAll(c)
	require.NoError(t, err)
	require.Equal(t, "-ERR too many arguments (limit 3)\r\n+PONG\r\n+OK\r\n", string(out))
}

func TestPasswordMatches(t *testing.T) {
	for _, tc := range []struct {
		want, got string
		ok        bool
	}{
		{"s3cret", "s3cret", true},
		{"s3cret", "s3cre", false},
		{"s3cret", "s3cret!", false},
		{"s3cret", "S3cret", false},
		{"s3cret", "", false},
		{"", "", true},
	} {
		if got := passwordMatches(tc.want, tc.got); got != tc.ok {
			t.Errorf("passwordMatches(%q, %q) = %v, want %v", tc.want, tc.got, got, tc.ok)
		}
	}
}
