package main

import (
	"fmt"
	"io"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestPipelineReplyBytesBounded: the writer holds a bounded number of bytes
// of replies, not only a bounded number of replies (max_pipeline): a chunk
// of GETs of one large value, and an MGET naming that key many times, were
// held whole before the first write (128 GETs of a 4 MiB value: 512 MiB,
// from a 2 KB request), for write_timeout when the client did not read.
func TestPipelineReplyBytesBounded(t *testing.T) {
	srv := memkvServer(t, Config{})
	ln := serveWriteSizes(t, srv)

	const value, n = 100_000, 40 // 4 MB of replies per pipeline, one chunk
	bulk := func(s string) string { return fmt.Sprintf("$%d\r\n%s\r\n", len(s), s) }
	set := "*3\r\n" + bulk("SET") + bulk("k") + bulk(strings.Repeat("v", value))
	mget := fmt.Sprintf("*%d\r\n", n+1) + bulk("MGET") + strings.Repeat(bulk("k"), n)
	pipe := set + strings.Repeat("GET k\r\n", n) + mget + "QUIT\r\n"
	c, err := net.Dial("tcp", ln.Addr().String())
	require.NoError(t, err)
	defer c.Close()
	require.NoError(t, c.SetDeadline(time.Now().Add(5*time.Second)))
	_, err = c.Write([]byte(pipe))
	require.NoError(t, err)
	out, err := io.ReadAll(c)
	require.NoError(t, err)
	require.Equal(t, 2*n, strings.Count(string(out), strings.Repeat("v", value)), "every value is answered")
	ln.mu.Lock()
	defer ln.mu.Unlock()
	require.Less(t, ln.largest, 256<<10+2*value, "a write holds 256 KiB of values and one more, not the whole chunk's")
}
