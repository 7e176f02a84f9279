package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// FuzzProtocol feeds arbitrary bytes to a connection of the front end, then
// ends its input, and reads everything the server answers until it closes.
// Invariants:
//   - no panic, not even one that the server recovers from (it closes the
//     connection), and the connection always ends, with the end of the
//     stream (the server never hangs on malformed input, nor resets);
//   - the output is a whole number of well-formed RESP replies (checked by
//     parseReplies, a strict parser of its own, not the server's encoder), with
//     no trailing bytes and no reply cut short;
//   - each reply is of the protocol the connection speaks when it is sent:
//     RESP2 until a HELLO 3 reply (a map whose "proto" is 3), RESP3 until a
//     HELLO 2 reply or a RESET: no RESP3 type reaches a RESP2 client, and no
//     RESP2 null a RESP3 one;
//   - every error starts with an upper-case code word (ERR, NOAUTH, ...);
//   - when the server closed the connection for a malformed or oversized
//     request (its counters say so), the last reply is that protocol error;
//     otherwise no reply is one;
//   - there are no more replies than commands the input could hold: every
//     command, inline or multi-bulk, ends with a '\n' (one more for the
//     protocol error).
func FuzzProtocol(f *testing.F) {
	for _, s := range fuzzProtocolSeeds {
		f.Add([]byte(s))
	}
	in := startGateway(f, Config{HTTPAddr: "-", Limits: Limits{MaxRequestBytes: 1 << 12, MaxArgs: 16, MaxPipeline: 8}})
	f.Fuzz(func(t *testing.T, data []byte) {
		bad := func() int64 { return in.srv.protoErrors.Load() + in.srv.tooLarge.Load() }
		before, panics := bad(), in.srv.panics.Load()
		out := exchange(t, in.Addr(), data)
		malformed := bad() > before
		require.Equal(t, panics, in.srv.panics.Load(), "serving the connection panicked (recovered): input %s", clip(data))
		replies, err := parseReplies(out)
		require.NoError(t, err, "input %s\noutput %s", clip(data), clip(out))
		require.LessOrEqual(t, len(replies), bytes.Count(data, []byte("\n"))+1, "more replies than commands: input %s\noutput %s", clip(data), clip(out))
		for i, r := range replies {
			if isProtocolError(r) && (!malformed || i != len(replies)-1) {
				t.Fatalf("reply %d of %d is a protocol error %q, but the connection was not closed for it (closed for one: %v): input %s\noutput %s",
					i, len(replies), r.str, malformed, clip(data), clip(out))
			}
		}
		if malformed {
			require.NotEmpty(t, replies, "closed for a malformed request without an error: input %s", clip(data))
			require.True(t, isProtocolError(replies[len(replies)-1]), "closed for a malformed request, last reply %+v: input %s\noutput %s", replies[len(replies)-1], clip(data), clip(out))
		} else {
			require.LessOrEqual(t, len(replies), bytes.Count(data, []byte("\n")), "more replies than commands: input %s\noutput %s", clip(data), clip(out))
		}
	})
}

// exchange writes data to a new connection to addr, ends its input, and
// returns all the server answered before it closed the connection.
func exchange(t *testing.T, addr string, data []byte) []byte {
	t.Helper()
	conn, err := net.Dial("tcp", addr)
	require.NoError(t, err)
	defer conn.Close()
	require.NoError(t, conn.SetDeadline(time.Now().Add(10*time.Second)))
	_, err = conn.Write(data)
	require.NoError(t, err)
	require.NoError(t, conn.(*net.TCPConn).CloseWrite()) // EOF after the input
	out, err := io.ReadAll(conn)
	require.NoError(t, err, "the server ends the connection (input %s, output %s)", clip(data), clip(out))
	return out
}

// clip quotes b for a failure message, cut to its first 512 bytes.
func clip(b []byte) string {
	if len(b) <= 512 {
		return strconv.Quote(string(b))
	}
	return fmt.Sprintf("%q... (%d bytes)", b[:512], len(b))
}

// isProtocolError reports whether r is the error the server answers a
// malformed or oversized request with before it closes the connection.
func isProtocolError(r reply) bool {
	return r.kind == '-' && (strings.HasPrefix(r.str, "ERR Protocol error") || r.str == errTooLarge.Error())
}

var fuzzProtocolSeeds = []string{
	"PING\r\n",
	"*1\r\n$4\r\nPING\r\n",
	"*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$1\r\nv\r\n*2\r\n$3\r\nGET\r\n$1\r\nk\r\n",
	"*2\r\n$5\r\nHELLO\r\n$1\r\n3\r\n*2\r\n$3\r\nGET\r\n$1\r\nk\r\n",
	"*5\r\n$3\r\nSET\r\n$1\r\nk\r\n$1\r\nv\r\n$2\r\nEX\r\n$2\r\n-1\r\n",
	"*2\r\n$4\r\nINCR\r\n$1\r\nk\r\n", "*x\r\n", "*1\r\n$-1\r\n", "$5\r\nhello\r\n",
	"*3\r\n$4\r\nMGET\r\n$1\r\na\r\n$1\r\nb\r\n", "QUIT\r\nPING\r\n", "\"unbalanced\r\n",
	"*2\r\n$4\r\nAUTH\r\n$1\r\nx\r\n", "*1\r\n$4\r\nINFO\r\n", "*2\r\n$6\r\nCONFIG\r\n$3\r\nGET\r\n",
	// A transaction, queued then run; one aborted by a refused command.
	"*1\r\n$5\r\nMULTI\r\n*3\r\n$3\r\nSET\r\n$1\r\na\r\n$1\r\n1\r\n*2\r\n$4\r\nINCR\r\n$1\r\na\r\n" +
		"*3\r\n$4\r\nMGET\r\n$1\r\na\r\n$1\r\nz\r\n*1\r\n$4\r\nEXEC\r\n",
	"MULTI\r\nGET a\r\nHELLO 3\r\nEXEC\r\nEXEC\r\nDISCARD\r\n",
	// WATCH, a write of the watched key, then a transaction over it.
	"WATCH a b\r\nSET a 2\r\nMULTI\r\nGET a\r\nGET b\r\nEXEC\r\nUNWATCH\r\n",
	"*2\r\n$5\r\nWATCH\r\n$1\r\nw\r\n*2\r\n$3\r\nGET\r\n$1\r\nw\r\n*1\r\n$5\r\nMULTI\r\n*3\r\n$3\r\nSET\r\n$1\r\nw\r\n$1\r\nx\r\n*1\r\n$4\r\nEXEC\r\n",
	// RESP3: HELLO 3's map, then maps, nulls and arrays in RESP3, back to RESP2.
	"HELLO 3\r\nCONFIG GET *\r\nGET missing\r\nMGET missing k\r\nCOMMAND DOCS\r\nCLIENT GETNAME\r\nHELLO 2\r\nGET missing\r\nCONFIG GET save\r\n",
	"HELLO 3 SETNAME fuzz\r\nMULTI\r\nGET a\r\nEXEC\r\nRESET\r\nGET missing\r\nHELLO 4\r\nHELLO 3 AUTH default x\r\n",
	// MGET with present and missing keys; KVSCAN with and without LIMIT.
	"MSET a 1 b 2 c 3\r\nMGET a missing b c\r\nKVSCAN a d\r\nKVSCAN a \"\" LIMIT 2\r\nKVSCAN a d LIMIT x\r\n",
	"*5\r\n$6\r\nKVSCAN\r\n$0\r\n\r\n$0\r\n\r\n$5\r\nLIMIT\r\n$1\r\n1\r\n",
	// CLIENT subcommands, a refused name.
	"CLIENT SETNAME fuzz\r\nCLIENT GETNAME\r\nCLIENT ID\r\nCLIENT INFO\r\nCLIENT SETNAME \"a b\"\r\nCLIENT NOPE\r\n",
	// COMMAND and its subcommands.
	"COMMAND\r\nCOMMAND COUNT\r\nCOMMAND DOCS\r\nCOMMAND LIST\r\nCOMMAND INFO GET\r\nCOMMAND NOPE\r\n",
	// A pipeline of 20 commands: past MaxPipeline (8), in chunks.
	strings.Repeat("PING\r\nGET k\r\nSET k v\r\nINCR n\r\n", 5),
	strings.Repeat("*2\r\n$3\r\nGET\r\n$1\r\nk\r\n", 17) + "*1\r\n$4\r\nQUIT\r\n" + "PING\r\n",
	// An oversized bulk (over MaxRequestBytes), after a command it must answer.
	"PING\r\n*2\r\n$3\r\nGET\r\n$5000\r\n" + strings.Repeat("x", 5000) + "\r\n",
	"*2\r\n$3\r\nGET\r\n$4090\r\n" + strings.Repeat("x", 4090) + "\r\n",
	// An oversized inline line, and a malformed command after good ones.
	strings.Repeat("y", 5000),
	"PING\r\nGET k\r\n*1\r\n$x\r\n",
	// Too many arguments (MaxArgs 16), an empty command.
	"MGET" + strings.Repeat(" k", 20) + "\r\n*0\r\n",
}

// reply is one parsed RESP reply. kind is its type byte; str holds the
// text of a simple string, error, bulk, verbatim, double, big number or
// boolean; n an integer; elems the elements of an aggregate (a map's are
// key, value, ...). null is set for $-1, *-1 and _.
type reply struct {
	kind  byte
	str   string
	n     int64
	null  bool
	elems []reply
}

var (
	errIncomplete = errors.New("the output ends inside a reply")

	// Strict forms of the RESP3 scalars: no sign on a zero, no leading
	// zeros, no space.
	reInteger = regexp.MustCompile(`^(0|-?[1-9][0-9]*)$`)
	reLength  = regexp.MustCompile(`^(0|[1-9][0-9]*)$`)
	reDouble  = regexp.MustCompile(`^(inf|-inf|nan|-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][-+]?[0-9]+)?)$`)
	reErrCode = regexp.MustCompile(`^[A-Z][A-Z0-9_]*( |$)`)
)

// maxReplyDepth bounds the nesting of aggregates the parser follows.
const maxReplyDepth = 32

// parseReplies parses out as a sequence of replies, checking each against
// the protocol the connection speaks when it is sent (see FuzzProtocol).
func parseReplies(out []byte) ([]reply, error) {
	var replies []reply
	proto := 2
	for len(out) > 0 {
		r, rest, err := parseReply(out, 0)
		if err != nil {
			return replies, fmt.Errorf("reply %d: %w (at %q)", len(replies), err, out[:min(len(out), 64)])
		}
		if r.kind == '>' {
			return replies, fmt.Errorf("reply %d: a push, which the server never sends", len(replies))
		}
		if err := checkProto(r, proto, true); err != nil {
			return replies, fmt.Errorf("reply %d in RESP%d: %w", len(replies), proto, err)
		}
		proto = nextProto(r, proto)
		replies = append(replies, r)
		out = rest
	}
	return replies, nil
}

// nextProto is the protocol after reply r: a HELLO reply sets it, a RESET
// returns to RESP2.
func nextProto(r reply, proto int) int {
	switch {
	case r.kind == '+' && r.str == "RESET":
		return 2
	case (r.kind == '%' || r.kind == '*') && len(r.elems) >= 2 && r.elems[0].str == "server":
		for i := 0; i+1 < len(r.elems); i += 2 {
			if p := r.elems[i+1]; r.elems[i].str == "proto" && p.kind == ':' && (p.n == 2 || p.n == 3) {
				return int(p.n)
			}
		}
	}
	return proto
}

// checkProto checks that r is of protocol proto: in RESP2 no RESP3 type,
// but for the map of a HELLO 3 reply (sent in RESP3); in RESP3 no RESP2
// null.
func checkProto(r reply, proto int, top bool) error {
	switch r.kind {
	case '+', '-', ':', '$', '*':
		if proto == 3 && r.null {
			return fmt.Errorf("a RESP2 null %c-1", r.kind)
		}
	default:
		if proto == 2 && !(top && r.kind == '%' && nextProto(r, 2) == 3) {
			return fmt.Errorf("RESP3 type %q", r.kind)
		}
	}
	if r.kind == '%' && top && proto == 2 {
		proto = 3 // the HELLO 3 reply itself
	}
	for _, e := range r.elems {
		if err := checkProto(e, proto, false); err != nil {
			return err
		}
	}
	return nil
}

// parseReply parses the reply at the start of b and returns it with the
// bytes after it. It returns errIncomplete when b ends inside the reply.
func parseReply(b []byte, depth int) (reply, []byte, error) {
	if depth > maxReplyDepth {
		return reply{}, nil, errors.New("aggregates nested too deep")
	}
	if len(b) == 0 {
		return reply{}, nil, errIncomplete
	}
	kind := b[0]
	line, rest, err := readLine(b[1:])
	if err != nil {
		return reply{}, nil, err
	}
	r := reply{kind: kind}
	switch kind {
	case '+':
		r.str = line
	case '-':
		r.str = line
		if !reErrCode.MatchString(line) {
			return reply{}, nil, fmt.Errorf("error %q does not start with an upper-case code", line)
		}
	case ':':
		if r.n, err = parseInteger(line); err != nil {
			return reply{}, nil, err
		}
	case '(':
		if !reInteger.MatchString(line) {
			return reply{}, nil, fmt.Errorf("big number %q", line)
		}
		r.str = line
	case ',':
		if !reDouble.MatchString(line) {
			return reply{}, nil, fmt.Errorf("double %q", line)
		}
		r.str = line
	case '#':
		if line != "t" && line != "f" {
			return reply{}, nil, fmt.Errorf("boolean %q", line)
		}
		r.str = line
	case '_':
		if line != "" {
			return reply{}, nil, fmt.Errorf("null with %q", line)
		}
		r.null = true
	case '$', '!', '=':
		if kind == '$' && line == "-1" {
			r.null = true
			break
		}
		if !reLength.MatchString(line) {
			return reply{}, nil, fmt.Errorf("%c length %q", kind, line)
		}
		n, err := strconv.Atoi(line)
		if err != nil {
			return reply{}, nil, fmt.Errorf("%c length %q: %w", kind, line, err)
		}
		if len(rest) < n+2 {
			return reply{}, nil, errIncomplete
		}
		if rest[n] != '\r' || rest[n+1] != '\n' {
			return reply{}, nil, fmt.Errorf("%c of %d bytes not followed by CRLF", kind, n)
		}
		r.str, rest = string(rest[:n]), rest[n+2:]
		if kind == '=' && (n < 4 || r.str[3] != ':') {
			return reply{}, nil, fmt.Errorf("verbatim string %q without its format", r.str)
		}
		if kind == '!' && !reErrCode.MatchString(r.str) {
			return reply{}, nil, fmt.Errorf("blob error %q does not start with an upper-case code", r.str)
		}
	case '*', '~', '>', '%', '|':
		if kind == '*' && line == "-1" {
			r.null = true
			break
		}
		if !reLength.MatchString(line) {
			return reply{}, nil, fmt.Errorf("%c count %q", kind, line)
		}
		n, err := strconv.Atoi(line)
		if err != nil || n > len(rest) { // an element takes at least 3 bytes
			if err == nil {
				return reply{}, nil, errIncomplete
			}
			return reply{}, nil, fmt.Errorf("%c count %q: %w", kind, line, err)
		}
		if kind == '%' || kind == '|' {
			n *= 2
		}
		if kind == '>' && n == 0 {
			return reply{}, nil, errors.New("an empty push")
		}
		r.elems = make([]reply, 0, n)
		for range n {
			var e reply
			if e, rest, err = parseReply(rest, depth+1); err != nil {
				return reply{}, nil, err
			}
			if e.kind == '>' {
				return reply{}, nil, errors.New("a push inside an aggregate")
			}
			r.elems = append(r.elems, e)
		}
		if kind == '|' { // attributes annotate the reply after them
			return parseReply(rest, depth)
		}
	default:
		return reply{}, nil, fmt.Errorf("unknown type byte %q", kind)
	}
	return r, rest, nil
}

// readLine returns the line at the start of b, without its CRLF, and the
// bytes after it. A line holds no CR nor LF.
func readLine(b []byte) (string, []byte, error) {
	i := bytes.IndexAny(b, "\r\n")
	switch {
	case i < 0:
		return "", nil, errIncomplete
	case b[i] == '\n':
		return "", nil, fmt.Errorf("LF without CR after %q", b[:i])
	case i+1 == len(b):
		return "", nil, errIncomplete
	case b[i+1] != '\n':
		return "", nil, fmt.Errorf("CR without LF after %q", b[:i])
	}
	return string(b[:i]), b[i+2:], nil
}

// parseInteger parses a RESP integer strictly: no plus sign, no leading
// zero, no "-0", within int64.
func parseInteger(s string) (int64, error) {
	if !reInteger.MatchString(s) {
		return 0, fmt.Errorf("integer %q", s)
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("integer %q: %w", s, err)
	}
	return n, nil
}

// TestParseReplies checks the fuzz target's reply parser on hand-made
// outputs: what it must accept, and what it must refuse.
func TestParseReplies(t *testing.T) {
	for _, tt := range []struct {
		out  string
		want int // replies; -1: refused
	}{
		{"", 0},
		{"+OK\r\n-ERR x\r\n:0\r\n:-12\r\n$3\r\nfoo\r\n$-1\r\n$0\r\n\r\n*-1\r\n*0\r\n", 9},
		{"*2\r\n$1\r\na\r\n*1\r\n:1\r\n", 1},
		{"%1\r\n$6\r\nserver\r\n$5\r\nredis\r\n", -1}, // a map in RESP2 that is no HELLO 3 reply
		{"%2\r\n$6\r\nserver\r\n$5\r\nredis\r\n$5\r\nproto\r\n:3\r\n_\r\n%0\r\n~1\r\n,1.5\r\n#t\r\n(-12\r\n=7\r\ntxt:abc\r\n|1\r\n+a\r\n+b\r\n:1\r\n", 8},
		{"%2\r\n$6\r\nserver\r\n$5\r\nredis\r\n$5\r\nproto\r\n:3\r\n$-1\r\n", -1}, // a RESP2 null in RESP3
		{"%2\r\n$6\r\nserver\r\n$5\r\nredis\r\n$5\r\nproto\r\n:3\r\n+RESET\r\n_\r\n", -1},
		{"_\r\n", -1},
		{"+OK\r\n+", -1},
		{"+OK\r", -1},
		{"+O\nK\r\n", -1},
		{"+OK\r\nx", -1},
		{":01\r\n", -1},
		{":-0\r\n", -1},
		{":+1\r\n", -1},
		{":99999999999999999999\r\n", -1},
		{"$3\r\nfo\r\n", -1},
		{"$3\r\nfoo\r\r", -1},
		{"$-2\r\n", -1},
		{"$03\r\nfoo\r\n", -1},
		{"*2\r\n:1\r\n", -1},
		{"*-2\r\n", -1},
		{"-lower case\r\n", -1},
		{">1\r\n:1\r\n", -1},
		{"?\r\n", -1},
	} {
		got, err := parseReplies([]byte(tt.out))
		if tt.want < 0 {
			require.Error(t, err, "%q", tt.out)
			continue
		}
		require.NoError(t, err, "%q", tt.out)
		require.Len(t, got, tt.want, "%q", tt.out)
	}
}
