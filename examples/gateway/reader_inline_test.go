package main

import (
	"bytes"
	"io"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/tidwall/redcon"
)

// TestRESPReaderInlineLinear: an inline command is split in time and memory
// linear in its line. redcon.Parse, which split them, allocates and clears
// the rest of the line at every space: one inline command of 256 KiB of
// spaces held a core for 37 s, one of max_request_bytes (4 MiB) for hours.
// The 32 KiB lines here made it allocate 0.5 GiB each.
func TestRESPReaderInlineLinear(t *testing.T) {
	const size = 32 << 10
	for _, tt := range []struct {
		name, line string
		args       int
	}{
		{"spaces", "GET" + strings.Repeat(" ", size) + "k", 2},
		{"words", "MGET" + strings.Repeat(" k", size/2), size/2 + 1},
		{"quoted words", "MGET" + strings.Repeat(` "k\n"`, size/6), size/6 + 1},
	} {
		t.Run(tt.name, func(t *testing.T) {
			in := []byte(tt.line + "\r\n")
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			rr := newRESPReader(bytes.NewReader(in), 1<<20)
			cmds, err := rr.ReadCommands()
			runtime.ReadMemStats(&after)
			require.NoError(t, err)
			require.Len(t, cmds, 1)
			require.Len(t, cmds[0].Args, tt.args)
			allocated := after.TotalAlloc - before.TotalAlloc
			t.Logf("%d bytes allocated for a line of %d", allocated, len(in))
			require.Less(t, allocated, uint64(256*len(in)), "splitting the line took memory quadratic in its length")
			_, err = rr.ReadCommands()
			require.ErrorIs(t, err, io.EOF)
		})
	}
}

// FuzzSplitInline: on any line, splitInline returns the arguments redcon's
// Parse returns, or its error.
func FuzzSplitInline(f *testing.F) {
	for _, s := range []string{
		"SET k v", `SET "a b" 'c d'`, `"a\nb\r\tc\\d\"e\'"`, `'x\'y'`, `a"b`, `"a"b`, `"a" b`, `""`, `''`,
		`"unterminated`, `"trailing\`, "  a   b  ", "a\tb", "a\x00b", `\"a`, `"a\qb"`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, words []byte) {
		if bytes.IndexByte(words, '\n') >= 0 || len(bytes.Trim(words, " ")) == 0 {
			t.Skip("one line, with a word")
		}
		if words[len(words)-1] == '\r' || words[0] == '*' {
			t.Skip("a CR before the line's end is part of the line end; a line of '*' is a multi-bulk command")
		}
		got, err := splitInline(words)
		want, werr := redcon.Parse(append(words, '\r', '\n'))
		if werr != nil {
			require.EqualError(t, err, werr.Error(), "line %q", words)
			return
		}
		require.NoError(t, err, "line %q", words)
		require.Len(t, got, len(want.Args), "line %q", words)
		for i := range got {
			require.Equal(t, string(want.Args[i]), string(got[i]), "line %q, argument %d", words, i)
			require.NotNil(t, got[i], "line %q, argument %d", words, i)
		}
	})
}
