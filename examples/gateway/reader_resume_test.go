package main

import (
	"bytes"
	"io"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestRESPReaderLargeCommandInSmallReads: a large command that arrives in
// small reads (a client sending a big MSET over a slow link, or on purpose)
// is parsed once, not once per read from its start. Each read parsed it from
// its start again: these 700 KB of small arguments in 64-byte reads took
// 11 s of CPU, within every limit of the front end (a 4 MiB command may
// take minutes); resumed where the last read stopped, tens of milliseconds.
func TestRESPReaderLargeCommandInSmallReads(t *testing.T) {
	const args = 40000
	var b bytes.Buffer
	b.WriteString("*" + strconv.Itoa(2*args+1) + "\r\n$4\r\nMSET\r\n")
	for i := range args {
		k := strconv.Itoa(i)
		b.WriteString("$" + strconv.Itoa(len(k)) + "\r\n" + k + "\r\n$1\r\nv\r\n")
	}
	b.WriteString("*1\r\n$4\r\nPING\r\n")
	t.Logf("%d bytes in %d reads", b.Len(), b.Len()/64+1)
	rr := newRESPReader(&chunkReader{data: b.Bytes(), n: 64}, 4<<20)
	start, cpu := time.Now(), processCPUSeconds()
	var cmds [][]byte // the first argument of each
	var mset [][]byte
	for len(cmds) < 2 {
		got, err := rr.ReadCommands()
		require.NoError(t, err)
		for _, c := range got {
			cmds = append(cmds, c.Args[0])
			if string(c.Args[0]) == "MSET" {
				mset = c.Args
			}
		}
	}
	took, cpuTook := time.Since(start), cpuSince(cpu)
	require.Equal(t, [][]byte{[]byte("MSET"), []byte("PING")}, cmds)
	require.Len(t, mset, 2*args+1)
	for i := range args {
		require.Equal(t, strconv.Itoa(i), string(mset[1+2*i]))
		require.Equal(t, "v", string(mset[2+2*i]))
	}
	t.Logf("read in %v (%v of CPU)", took, cpuTook)
	require.Less(t, cpuTook, 2*time.Second, "parsing took time quadratic in the command's size")
}

// cpuSince is the process's CPU time since processCPUSeconds read start: the
// parsing bounds above hold it, not the wall clock, which a loaded machine
// stretches (a linear parse read in 2.3 s under -race beside other tests;
// it takes about 0.3 s of CPU).
func cpuSince(start float64) time.Duration {
	return time.Duration((processCPUSeconds() - start) * float64(time.Second))
}

// TestRESPReaderLongLineInSmallReads: a long line (an inline command, a
// multi-bulk count, a bulk length) arriving in small reads is searched for
// its end once, not from its start on every read. Searched from its start,
// an inline SET of a 2 MiB value in 8-byte reads took 8 s of CPU, within
// every limit of the front end. An inline line is now refused past 64 KiB
// (maxInline), as Redis refuses it, and so is a multi-bulk count or bulk
// length line; the cases of that size check that such a line is still
// searched once.
func TestRESPReaderLongLineInSmallReads(t *testing.T) {
	const size = 2 << 20
	for _, tt := range []struct {
		name, give string
		want       error
	}{
		{"inline", "SET k " + strings.Repeat("v", maxInline-8) + "\r\nPING\r\n", io.EOF},
		{"inline past the bound", "SET k " + strings.Repeat("v", size) + "\r\nPING\r\n", errBigInline},
		{"multi-bulk count", "*" + strings.Repeat("1", maxInline-1) + "\r\n", errBadMultiBulk},
		{"bulk length", "*1\r\n$" + strings.Repeat("1", maxInline-1) + "\r\n", errBadBulk},
		{"multi-bulk count past the bound", "*" + strings.Repeat("1", size) + "\r\n", errBigMulti},
		{"bulk length past the bound", "*1\r\n$" + strings.Repeat("1", size) + "\r\n", errBigBulk},
	} {
		t.Run(tt.name, func(t *testing.T) {
			rr := newRESPReader(&chunkReader{data: []byte(tt.give), n: 8}, 4<<20)
			start, cpu := time.Now(), processCPUSeconds()
			got, err := readAll(rr.ReadCommands)
			took, cpuTook := time.Since(start), cpuSince(cpu)
			require.ErrorIs(t, err, tt.want)
			if tt.want == io.EOF {
				require.Len(t, got, 2)
				require.Len(t, got[0][2], maxInline-8)
			}
			t.Logf("read in %v (%v of CPU), %d bytes searched", took, cpuTook, rr.searched)
			require.Less(t, cpuTook, 2*time.Second, "the line was searched from its start on every read")
			// The bound on time alone let that pass: a line is at most
			// maxInline, and searching it from its start on every read of 8
			// bytes costs milliseconds. Each byte is searched once.
			require.LessOrEqual(t, rr.searched, len(tt.give), "the line was searched from its start on every read")
		})
	}
}
