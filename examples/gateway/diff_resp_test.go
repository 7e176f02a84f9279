package main

// The raw RESP client of the differential test (diff_test.go): it sends
// commands byte for byte as given and parses every reply type of RESP2 and
// RESP3 into a tree that keeps the type, so that two servers' replies can be
// compared as sent, not as a client library would reinterpret them.

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net"
	"slices"
	"strconv"
	"strings"
	"time"
)

// rval is one reply: its RESP type byte, its text (simple string, error,
// bulk, number) and its elements (array, map, set, push, attribute).
type rval struct {
	typ  byte
	s    string
	elem []rval
	null bool // $-1 or *-1 in RESP2
}

func (v rval) String() string {
	switch {
	case v.null:
		return string(v.typ) + "-1"
	case v.elem != nil || strings.ContainsRune("*%~>|", rune(v.typ)):
		parts := make([]string, len(v.elem))
		for i, e := range v.elem {
			parts[i] = e.String()
		}
		return string(v.typ) + "[" + strings.Join(parts, " ") + "]"
	}
	if len(v.s) > 64 {
		return fmt.Sprintf("%c%q...(%d bytes)", v.typ, v.s[:48], len(v.s))
	}
	return string(v.typ) + strconv.Quote(v.s)
}

// errCode is the first word of an error reply (ERR, WRONGTYPE, EXECABORT...).
func (v rval) errCode() string {
	code, _, _ := strings.Cut(v.s, " ")
	return code
}

// respConn is one raw connection to a server.
type respConn struct {
	addr string
	c    net.Conn
	br   *bufio.Reader
}

func dialRESP(addr string) (*respConn, error) {
	c, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		return nil, err
	}
	return &respConn{addr: addr, c: c, br: bufio.NewReader(c)}, nil
}

func (rc *respConn) close() { _ = rc.c.Close() }

// appendCommand appends args as a RESP multi-bulk command.
func appendCommand(b []byte, args []string) []byte {
	b = append(b, '*')
	b = strconv.AppendInt(b, int64(len(args)), 10)
	b = append(b, "\r\n"...)
	for _, a := range args {
		b = append(b, '$')
		b = strconv.AppendInt(b, int64(len(a)), 10)
		b = append(b, "\r\n"...)
		b = append(b, a...)
		b = append(b, "\r\n"...)
	}
	return b
}

// plainToken reports whether a can be sent as a word of an inline command
// as it is, unquoted (FuzzInlineMatchesRedis checks quoting).
func plainToken(a string) bool {
	for i := 0; i < len(a); i++ {
		if c := a[i]; c <= ' ' || c > '~' || c == '"' || c == '\'' || c == '\\' {
			return false
		}
	}
	return a != ""
}

// do writes the commands in one write (a pipeline) and reads their replies;
// with inline, a command whose arguments are all plain tokens is sent as an
// inline command. It stops at the first read error, returning the replies
// read so far.
func (rc *respConn) do(cmds [][]string, inline bool) ([]rval, error) {
	if err := rc.send(cmds, inline); err != nil {
		return nil, err
	}
	return rc.recv(len(cmds))
}

// send is do's write: the commands in one write, their replies not read.
func (rc *respConn) send(cmds [][]string, inline bool) error {
	var b []byte
	for _, c := range cmds {
		if inline && !slices.ContainsFunc(c, func(a string) bool { return !plainToken(a) }) {
			b = append(b, strings.Join(c, " ")...)
			b = append(b, "\r\n"...)
			continue
		}
		b = appendCommand(b, c)
	}
	_ = rc.c.SetDeadline(time.Now().Add(10 * time.Second))
	_, err := rc.c.Write(b)
	return err
}

// recv is do's read: n replies, or those read before the first error.
func (rc *respConn) recv(n int) ([]rval, error) {
	out := make([]rval, 0, n)
	for range n {
		v, err := readRESP(rc.br, 0)
		if err != nil {
			return out, err
		}
		out = append(out, v)
	}
	return out, nil
}

var errRESPDepth = errors.New("reply nested too deep")

// readRESP reads one reply (attributes are read and returned as their own
// value, which no command of the test makes either server send).
func readRESP(br *bufio.Reader, depth int) (rval, error) {
	if depth > 16 {
		return rval{}, errRESPDepth
	}
	line, err := br.ReadString('\n')
	if err != nil {
		return rval{}, err
	}
	if len(line) < 3 || line[len(line)-2] != '\r' {
		return rval{}, fmt.Errorf("malformed reply line %q", line)
	}
	typ, body := line[0], line[1:len(line)-2]
	switch typ {
	case '+', '-', ':', ',', '#', '(':
		return rval{typ: typ, s: body}, nil
	case '_':
		return rval{typ: typ}, nil
	case '$', '=', '!':
		n, err := strconv.Atoi(body)
		if err != nil || n < -1 || n > 1<<26 {
			return rval{}, fmt.Errorf("bad bulk length %q", body)
		}
		if n < 0 {
			return rval{typ: typ, null: true}, nil
		}
		buf := make([]byte, n+2)
		if _, err := io.ReadFull(br, buf); err != nil {
			return rval{}, err
		}
		return rval{typ: typ, s: string(buf[:n])}, nil
	case '*', '%', '~', '>', '|':
		n, err := strconv.Atoi(body)
		if err != nil || n < -1 || n > 1<<20 {
			return rval{}, fmt.Errorf("bad aggregate length %q", body)
		}
		if n < 0 {
			return rval{typ: typ, null: true}, nil
		}
		if typ == '%' || typ == '|' {
			n *= 2
		}
		v := rval{typ: typ, elem: make([]rval, 0, n)}
		for range n {
			e, err := readRESP(br, depth+1)
			if err != nil {
				return rval{}, err
			}
			v.elem = append(v.elem, e)
		}
		return v, nil
	}
	return rval{}, fmt.Errorf("unknown reply type %q", line)
}

// sameReply compares the reply of a gateway (got) with Redis's (want) to cmd
// and returns "" or what differs. Errors compare by code only (the wording
// may differ); the commands whose content is the server's own (INFO,
// COMMAND, CONFIG GET, CLIENT ID/INFO, HELLO's map) compare by shape.
func sameReply(cmd []string, want, got rval) string {
	name := strings.ToUpper(cmd[0])
	sub := ""
	if len(cmd) > 1 {
		sub = strings.ToUpper(cmd[1])
	}
	if want.typ == '-' || got.typ == '-' {
		if want.typ != got.typ || want.errCode() != got.errCode() {
			return fmt.Sprintf("redis %v, gateway %v", want, got)
		}
		return ""
	}
	switch {
	case name == "INFO", name == "COMMAND", name == "CLIENT" && (sub == "INFO" || sub == "ID"):
		if textual(want.typ) != textual(got.typ) {
			return fmt.Sprintf("redis %c, gateway %c", want.typ, got.typ)
		}
		return ""
	case name == "CONFIG":
		if want.typ != got.typ {
			return fmt.Sprintf("redis %c, gateway %c", want.typ, got.typ)
		}
		return ""
	case name == "HELLO":
		return sameHello(want, got)
	}
	return sameValue(want, got)
}

// textual maps the string types of RESP3 (verbatim) to the bulk string.
func textual(t byte) byte {
	if t == '=' {
		return '$'
	}
	return t
}

// sameHello compares HELLO's replies: the same shape and protocol version.
func sameHello(want, got rval) string {
	if want.typ != got.typ || len(want.elem) != len(got.elem) {
		return fmt.Sprintf("redis %v, gateway %v", want, got)
	}
	for i := 0; i+1 < len(want.elem); i += 2 {
		if want.elem[i].s == "proto" && (got.elem[i].s != "proto" || want.elem[i+1].String() != got.elem[i+1].String()) {
			return fmt.Sprintf("proto: redis %v, gateway %v", want, got)
		}
	}
	return ""
}

// sameValue compares two replies in full, but errors (in EXEC's reply too)
// by code.
func sameValue(want, got rval) string {
	if !equalReply(want, got) {
		return fmt.Sprintf("redis %v, gateway %v", want, got)
	}
	return ""
}

func equalReply(want, got rval) bool {
	switch {
	case want.typ != got.typ || want.null != got.null || len(want.elem) != len(got.elem):
		return false
	case want.typ == '-':
		return want.errCode() == got.errCode()
	case want.s != got.s:
		return false
	}
	for i := range want.elem {
		if !equalReply(want.elem[i], got.elem[i]) {
			return false
		}
	}
	return true
}
