package main

import (
	"bytes"
	"runtime"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestRESPReaderMemoryPerReadIsBounded: the commands one read returns take
// memory bounded by the read buffer, whatever their size. A read parsed
// every complete command of the buffer at once, and a command takes a span,
// a redcon.Command and, inline, four allocations of its own: a client that
// grew the buffer to max_request_bytes with one large command (and kept a
// partial command pending so that it stays) then sent it full of 2-byte
// inline commands made one read hold 2 million commands, about 200 MB for
// 4 MiB of input (the default limit), per connection; 52 MB for the 1 MiB
// limit here.
func TestRESPReaderMemoryPerReadIsBounded(t *testing.T) {
	const limit = 1 << 20
	const big = limit / 2
	var b bytes.Buffer
	b.WriteString("*1\r\n$" + strconv.Itoa(big) + "\r\n")
	b.Write(bytes.Repeat([]byte("x"), big))
	b.WriteString("\r\n")
	const tiny = limit / 2 // "a\n": an inline command of one argument
	b.Write(bytes.Repeat([]byte("a\n"), tiny))
	b.WriteString("*1\r\n$5\r\nab") // pending: the buffer is not shrunk
	rr := newRESPReader(&chunkReader{data: b.Bytes(), n: limit}, limit)

	var ms runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&ms)
	before := ms.HeapAlloc
	cmds, err := rr.ReadCommands()
	require.NoError(t, err)
	runtime.GC()
	runtime.ReadMemStats(&ms)
	held := int64(ms.HeapAlloc) - int64(before)
	t.Logf("one read: %d commands, %d MB held", len(cmds), held>>20)
	require.Len(t, cmds[0].Args[0], big)
	require.Less(t, held, int64(4*limit), "the commands of one read take memory out of proportion to it")
	runtime.KeepAlive(cmds)

	n := len(cmds) - 1 // the tiny ones
	for n < tiny {
		cmds, err = rr.ReadCommands()
		require.NoError(t, err)
		for _, c := range cmds {
			if len(c.Args) != 1 || string(c.Args[0]) != "a" {
				require.Failf(t, "a wrong command", "%q", c.Args)
			}
		}
		n += len(cmds)
	}
	require.Equal(t, tiny, n)
}
