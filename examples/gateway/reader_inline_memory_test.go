package main

import (
	"bytes"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestInlineMemoryPerMiB: the inline commands of one read of 1 MiB take
// memory in proportion to it, near what their arguments need (a 24-byte
// slice each, the line copied twice). Each also carried a Raw that nothing
// reads, its arguments again in multi-bulk form grown by appends, and its
// arguments' slice was grown by appends: 1 MiB of one-letter words held
// 22 MB and allocated 48 MB (now 14 and 15), 1 MiB of 1 KiB SETs held
// 2.5 MB and allocated 3.8 MB (now 1.3 and 2.4).
func TestInlineMemoryPerMiB(t *testing.T) {
	for _, tt := range []struct {
		name        string
		line        string  // about 1 KiB: a read returns 1024 commands at most
		held, alloc float64 // the most bytes per byte read
	}{
		{"one-letter words", "MSET" + strings.Repeat(" a", 509) + "\r\n", 16, 16},
		{"1 KiB values", "SET key:000001 " + strings.Repeat("v", 1007) + "\r\n", 2, 3},
	} {
		t.Run(tt.name, func(t *testing.T) {
			in := bytes.Repeat([]byte(tt.line), readerMaxScratch)
			rr := newRESPReader(&chunkReader{}, 2<<20)
			rr.buf = make([]byte, 2<<20) // as grown by an earlier command
			rr.end = copy(rr.buf, in)
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			cmds, err := rr.ReadCommands()
			runtime.GC()
			runtime.ReadMemStats(&after)
			require.NoError(t, err)
			require.Len(t, cmds, readerMaxScratch)
			held := float64(int64(after.HeapAlloc)-int64(before.HeapAlloc)) / float64(len(in))
			alloc := float64(after.TotalAlloc-before.TotalAlloc) / float64(len(in))
			t.Logf("per MiB read: %.1f MB held, %.1f MB allocated", held*(1<<20)/1e6, alloc*(1<<20)/1e6)
			require.Less(t, held, tt.held, "bytes held per byte read")
			require.Less(t, alloc, tt.alloc, "bytes allocated per byte read")
			runtime.KeepAlive(cmds)
			runtime.KeepAlive(rr)
		})
	}
}
