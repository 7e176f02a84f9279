package main

import (
	"bytes"
	"io"
	"runtime"
	"strings"
	"testing"
	"weak"

	"github.com/stretchr/testify/require"
)

// scriptReader returns its chunks in order, each in as few reads as the
// caller's buffer allows, never two chunks in one read.
type scriptReader struct{ chunks [][]byte }

func (r *scriptReader) Read(p []byte) (int, error) {
	if len(r.chunks) == 0 {
		return 0, io.EOF
	}
	n := copy(p, r.chunks[0])
	if r.chunks[0] = r.chunks[0][n:]; len(r.chunks[0]) == 0 {
		r.chunks = r.chunks[1:]
	}
	return n, nil
}

// TestRESPReaderKeepsNoEarlierRead: once the next commands are returned,
// the commands of an earlier read are the caller's alone, and live as long
// as it keeps them. The reader's slice of commands kept, past the length of
// each read that returned fewer commands than one before it, the commands
// of that earlier read, and so its whole copy of the read (up to
// max_request_bytes); release dropped them only at a read with nothing
// pending, which a client that always leaves a command partly sent never
// allows: each read with one command fewer than the one before kept one
// more earlier read, up to readerMaxScratch of them (4 GiB at the default
// limits) on one connection.
func TestRESPReaderKeepsNoEarlierRead(t *testing.T) {
	filler := strings.Repeat("x", 1000)
	// An inline command's arguments are a copy of their own, which the
	// reader's spans kept too.
	for name, echo := range map[string]string{
		"multibulk": "*2\r\n$4\r\nECHO\r\n$1000\r\n" + filler + "\r\n",
		"inline":    "ECHO " + filler + "\r\n",
	} {
		t.Run(name, func(t *testing.T) { testReaderKeepsNoEarlierRead(t, echo, filler) })
	}
}

func testReaderKeepsNoEarlierRead(t *testing.T, echo, filler string) {
	const rounds = 8
	var chunks [][]byte
	for r := range rounds {
		var b bytes.Buffer
		if r > 0 {
			b.WriteString("NG\r\n") // completes the PING the last round left partial
		}
		b.WriteString(strings.Repeat("*1\r\n$4\r\nPING\r\n", rounds-1-r))
		b.WriteString(echo)             // last: one read later, past the length of the next
		b.WriteString("*1\r\n$4\r\nPI") // pending at the next read
		chunks = append(chunks, b.Bytes())
	}
	rr := newRESPReader(&scriptReader{chunks: chunks}, 1<<20)
	var reads []weak.Pointer[byte] // each round's copy of its read
	for range rounds {
		cmds, err := rr.ReadCommands()
		require.NoError(t, err)
		echo := cmds[len(cmds)-1]
		require.Equal(t, "ECHO", string(echo.Args[0]))
		require.Equal(t, filler, string(echo.Args[1]))
		reads = append(reads, weak.Make(&echo.Args[1][0]))
	}
	runtime.GC()
	kept := 0
	for _, p := range reads[:rounds-1] { // the last read's commands were just returned
		if p.Value() != nil {
			kept++
		}
	}
	require.Zero(t, kept, "the reader keeps earlier reads of the %d it returned", rounds)
	runtime.KeepAlive(rr)
}
