package main

import (
	"bytes"
	"io"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
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

// TestSplitInlineAsRedis: an inline command is split as Redis's
// sdssplitargs splits it (FuzzInlineMatchesRedis checks against a
// redis-server). It was split by redcon.Parse's rules, which store other
// bytes than Redis for the same typed line: "a\x41" was ax41, not aA, 'C:\new'
// held a newline, a tab did not separate words, and a quote inside a word
// ("a"b c"") was refused.
func TestSplitInlineAsRedis(t *testing.T) {
	for _, tc := range []struct {
		line string
		want []string // nil: unbalanced quotes
	}{
		{`SET k "a\x41"`, []string{"SET", "k", "aA"}},
		{`"\x00\xfF\x4"`, []string{"\x00\xffx4"}},
		{`'a\x41' 'C:\new' 'it\'s'`, []string{`a\x41`, `C:\new`, "it's"}},
		{`"a\nb\r\t\b\a\q\"\\"`, []string{"a\nb\r\t\b\aq\"\\"}},
		{"a\tb \t c\rd\ve\ff", []string{"a", "b", "c", "d\ve\ff"}},
		{"\v\f a", []string{"a"}},
		{`a"b c"`, []string{"ab c"}},
		{`a'b c' d`, []string{"ab c", "d"}},
		{"\"a\"\tb", []string{"a", "b"}},
		{`"" ''`, []string{"", ""}},
		{"\t \v", []string{}},
		{`"ab"c`, nil},
		{`'ab'c`, nil},
		{`"ab`, nil},
		{`"ab\"`, nil},
		{`"ab\`, nil},
		{`'ab\'`, nil},
		{`a"b`, nil},
	} {
		got, err := splitInline([]byte(tc.line))
		if tc.want == nil {
			require.ErrorIs(t, err, errBadQuotes, "line %q", tc.line)
			continue
		}
		require.NoError(t, err, "line %q", tc.line)
		args := []string{}
		for _, a := range got {
			require.NotNil(t, a, "line %q", tc.line)
			args = append(args, string(a))
		}
		require.Equal(t, tc.want, args, "line %q", tc.line)
	}
}

// FuzzInlineMatchesRedis: on any line, an inline ECHO of it, then a PING,
// gets from the gateway what it gets from a redis-server: the same argument
// (or the same arity error, when the line splits into more or fewer), or the
// same protocol error, and then the end of the stream. A connection serves
// inputs until one closes it: a connection per input left tens of thousands
// of sockets in TIME_WAIT, which ran the machine out of local ports.
func FuzzInlineMatchesRedis(f *testing.F) {
	for _, s := range []string{
		"k", `"a\x41"`, `'a\x41'`, `'a\nb'`, `"a\bb\a"`, `a"b c"`, `"ab"c`, `"ab`, "a\tb", "\ta\v",
		"a\vb", `'it\'s'`, `""`, `\x41`, `a'b`, `"\x4g"`, `"a\`, `'a\`, "a\rb", `"q"\tx`, "",
	} {
		f.Add(s)
	}
	rs := startRedis(f)
	gw := startGateway(f, Config{HTTPAddr: "-"})
	conns := map[string]*respConn{}
	f.Cleanup(func() {
		for _, c := range conns {
			c.close()
		}
	})
	ask := func(t *testing.T, addr, in string) []string {
		c := conns[addr]
		if c == nil {
			var err error
			c, err = dialRESP(addr)
			require.NoError(t, err)
			conns[addr] = c
		}
		require.NoError(t, c.c.SetDeadline(time.Now().Add(10*time.Second)))
		_, err := c.c.Write([]byte(in))
		require.NoError(t, err)
		var out []string
		for range 2 {
			v, err := readRESP(c.br, 0)
			if err != nil { // closed after a protocol error: the server ends the stream first
				require.ErrorIs(t, err, io.EOF, "%s, after %q", addr, out)
				out = append(out, "EOF")
				c.close()
				delete(conns, addr)
				break
			}
			out = append(out, fullString(v))
		}
		return out
	}
	f.Fuzz(func(t *testing.T, line string) {
		if strings.ContainsAny(line, "\n\x00") || len(line) > 1024 {
			t.Skip("one line, without NUL (Redis never finds the end of a line that holds one)")
		}
		in := "ECHO " + line + "\r\nPING\r\n"
		require.Equal(t, ask(t, rs.addr, in), ask(t, gw.Addr(), in), "line %q", line)
	})
}
