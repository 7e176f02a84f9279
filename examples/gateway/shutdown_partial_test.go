package main

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestShutdownDeliversReplyBeforePartialCommand: a command read before
// Shutdown gets its reply, and then the end of the stream, when the read
// that brought it also brought the start of the next command, whose rest
// the client sends during the Shutdown. The connection's read for that
// rest failed at Shutdown's deadline and the connection was closed with it
// unread, without the drain a connection stopped between two commands
// gets: the kernel reset it, and the client read "connection reset by
// peer" in place of the reply it was owed.
func TestShutdownDeliversReplyBeforePartialCommand(t *testing.T) {
	// The ECHO and the start of the PING come in one read.
	got, err := shutdownDuringEcho(t, "*2\r\n$4\r\nECHO\r\n$5\r\nhello\r\n*1\r\n$4\r\nPI", "NG\r\n")
	require.NoError(t, err, "the reply, then the end of the stream (got %q)", got)
	require.Equal(t, "$5\r\nhello\r\n", string(got))
}
