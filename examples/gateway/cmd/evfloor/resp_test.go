package main

import (
	"bytes"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParseCommand(t *testing.T) {
	for _, tt := range []struct {
		name string
		in   string
		args []string
		used int
		ok   bool
	}{
		{"GET", "*2\r\n$3\r\nGET\r\n$1\r\nk\r\n", []string{"GET", "k"}, 20, true},
		{"two pipelined: the first", "*1\r\n$4\r\nPING\r\n*1\r\n$4\r\nPING\r\n", []string{"PING"}, 14, true},
		{"empty bulk", "*2\r\n$3\r\nGET\r\n$0\r\n\r\n", []string{"GET", ""}, 19, true},
		{"partial header", "*2\r", nil, 0, false},
		{"partial argument", "*2\r\n$3\r\nGET\r\n$5\r\nab", nil, 0, false},
		{"inline command", "PING\r\n", nil, 0, false},
		{"not a bulk", "*1\r\n:1\r\n", nil, 0, false},
		{"empty array", "*0\r\n", nil, 0, false},
		{"bad length", "*x\r\n", nil, 0, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			args, used, ok := parseCommand([]byte(tt.in))
			require.Equal(t, tt.ok, ok)
			if !ok {
				return
			}
			assert.Equal(t, tt.used, used)
			var got []string
			for _, a := range args {
				got = append(got, string(a))
			}
			assert.Equal(t, tt.args, got)
		})
	}
}

func TestReplyLen(t *testing.T) {
	for _, tt := range []struct {
		in   string
		n    int
		full bool
	}{
		{"+OK\r\n", 5, true},
		{"-ERR x\r\n", 8, true},
		{":12\r\n", 5, true},
		{"$3\r\nabc\r\n", 9, true},
		{"$-1\r\n", 5, true},
		{"*2\r\n$1\r\na\r\n$-1\r\n", 16, true},
		{"*2\r\n*1\r\n:1\r\n+OK\r\n", 17, true},
		{"*-1\r\n", 5, true},
		{"$3\r\nab", 0, false},
		{"*2\r\n$1\r\na\r\n", 0, false},
		{"+OK", 0, false},
		{"", 0, false},
		{"?", 0, false},
		// Malformed: no CRLF after a bulk's payload. Taken as whole, the
		// two bytes after it were dropped and the next reply misframed.
		{"$3\r\nabcXY", 0, false},
		{"$3\r\nabc\rX+OK\r\n", 0, false},
		{"*2\r\n$1\r\naXY$1\r\nb\r\n", 0, false},
		{"$0\r\nXY", 0, false},
	} {
		n, full := replyLen([]byte(tt.in))
		assert.Equal(t, tt.full, full, "%q", tt.in)
		if full {
			assert.Equal(t, tt.n, n, "%q", tt.in)
		}
	}
}

func TestArrayElems(t *testing.T) {
	in := "*3\r\n$1\r\na\r\n$-1\r\n$2\r\nbc\r\n+NEXT\r\n"
	elems, used, ok := arrayElems([]byte(in), 3)
	require.True(t, ok)
	assert.Equal(t, len(in)-len("+NEXT\r\n"), used)
	assert.Equal(t, []string{"$1\r\na\r\n", "$-1\r\n", "$2\r\nbc\r\n"}, []string{string(elems[0]), string(elems[1]), string(elems[2])})

	_, _, ok = arrayElems([]byte(in[:10]), 3)
	assert.False(t, ok, "partial")
	_, _, ok = arrayElems([]byte(in), 2)
	assert.False(t, ok, "another number of elements than asked")

	elems, used, ok = arrayElems([]byte("-ERR down\r\n"), 2)
	require.True(t, ok)
	assert.Equal(t, 11, used)
	assert.Equal(t, []string{"-ERR down\r\n", "-ERR down\r\n"}, []string{string(elems[0]), string(elems[1])}, "an error answers every key")
}

// FuzzParseCommand: any input parses without a panic, and a command that
// parses comes back the same after encoding. It is self-delimiting: its bytes
// alone parse the same, and none of their prefixes does (a command cut short
// is incomplete); each argument in the input ends with a CRLF, as RESP frames
// a bulk string (a malformed command reads as incomplete).
func FuzzParseCommand(f *testing.F) {
	for _, s := range []string{"*2\r\n$3\r\nGET\r\n$1\r\nk\r\n", "*1\r\n$4\r\nPING\r\n", "*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$0\r\n\r\n", "*-1\r\n", "$-5\r\n"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		args, used, ok := parseCommand(in)
		if !ok {
			return
		}
		require.LessOrEqual(t, used, len(in))
		again, used2, ok := parseCommand(appendCommand(nil, args...))
		require.True(t, ok)
		require.Equal(t, len(appendCommand(nil, args...)), used2)
		require.Equal(t, args, again)
		for _, a := range args {
			end := cap(in) - cap(a) + len(a) // a is a slice of in
			require.Equal(t, "\r\n", string(in[end:min(end+2, len(in))]), "argument %q of %q", a, in)
		}
		whole, usedWhole, ok := parseCommand(in[:used:used])
		require.True(t, ok, "%q alone does not parse", in[:used])
		require.Equal(t, used, usedWhole)
		require.Equal(t, args, whole)
		for cut := range used {
			_, _, ok := parseCommand(in[:cut:cut])
			require.False(t, ok, "%q, %d of the %d bytes of a command, parses", in[:cut], cut, used)
		}
	})
}

// FuzzReplyLen: a reply that replyLen takes as whole is framed as RESP2
// frames it, as a reference reader (refReplyLen) checks it: every line and
// every bulk's payload ends with a CRLF. Its bytes alone are whole too, and
// none of their prefixes is (a reply cut short is incomplete).
func FuzzReplyLen(f *testing.F) {
	for _, s := range []string{"+OK\r\n", "-ERR x\r\n", ":1\r\n", "$3\r\nabc\r\n", "$-1\r\n",
		"*2\r\n$1\r\na\r\n$-1\r\n", "*2\r\n*1\r\n:1\r\n+OK\r\n", "$3\r\nabcXY", "*1\r\n$1\r\naXY"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		n, full := replyLen(in)
		ref, refOK := refReplyLen(in)
		require.Equal(t, refOK, full, "%q: whole by replyLen, framed by the reference", in)
		if !full {
			return
		}
		require.Equal(t, ref, n, "%q", in)
		again, full := replyLen(in[:n:n])
		require.True(t, full, "%q alone is not whole", in[:n])
		require.Equal(t, n, again)
		for cut := range n {
			_, full := replyLen(in[:cut:cut])
			require.False(t, full, "%q, %d of the %d bytes of a reply, is whole", in[:cut], cut, n)
		}
	})
}

// refReplyLen is the length of the RESP2 reply at the start of b, read as a
// client library reads one: a line up to its CRLF, a bulk's payload then its
// CRLF. A negative length is a null. ok is false if b holds no whole,
// well-framed reply.
func refReplyLen(b []byte) (n int, ok bool) {
	line := func(at int) (string, int, bool) {
		end := bytes.Index(b[at:], []byte("\r\n"))
		if end < 0 {
			return "", 0, false
		}
		return string(b[at : at+end]), at + end + 2, true
	}
	if len(b) == 0 {
		return 0, false
	}
	head, next, ok := line(1)
	if !ok {
		return 0, false
	}
	switch b[0] {
	case '+', '-', ':':
		return next, true
	case '$', '*':
		size, err := strconv.Atoi(head)
		if err != nil {
			return 0, false
		}
		if b[0] == '$' {
			if size < 0 {
				return next, true
			}
			if size > len(b) || next+size+2 > len(b) || !bytes.Equal(b[next+size:next+size+2], []byte("\r\n")) {
				return 0, false
			}
			return next + size + 2, true
		}
		for range max(size, 0) {
			m, ok := refReplyLen(b[next:])
			if !ok {
				return 0, false
			}
			next += m
		}
		return next, true
	}
	return 0, false
}

func TestAppendCommand(t *testing.T) {
	got := string(appendCommand(nil, []byte("SET"), []byte("k"), []byte("v v")))
	assert.Equal(t, "*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$3\r\nv v\r\n", got)
	assert.True(t, strings.HasSuffix(string(appendBulk(nil, nil)), "$0\r\n\r\n"))
}
