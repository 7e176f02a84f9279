package main

import (
	"bytes"
	"strconv"
)

// parseCommand parses one RESP command (an array of bulk strings) at the
// start of b: its arguments (slices of b), the bytes it took, and whether b
// held a whole command. A malformed command reads as incomplete (a floor:
// the connection then stalls rather than being answered).
func parseCommand(b []byte) (args [][]byte, used int, ok bool) {
	if len(b) == 0 || b[0] != '*' {
		return nil, 0, false
	}
	n, i, ok := parseLine(b, 1)
	if !ok || n <= 0 || n > len(b) { // each argument takes 4 bytes at least
		return nil, 0, false
	}
	args = make([][]byte, 0, min(n, 16))
	for range n {
		if i >= len(b) || b[i] != '$' {
			return nil, 0, false
		}
		size, j, ok := parseLine(b, i+1)
		// The bulk ends with a CRLF: without one, the command is malformed,
		// and taking the two bytes after it would misframe the next one.
		if !ok || size < 0 || size > len(b) || j+size+2 > len(b) || string(b[j+size:j+size+2]) != "\r\n" {
			return nil, 0, false
		}
		args = append(args, b[j:j+size])
		i = j + size + 2
	}
	return args, i, true
}

// parseLine reads the integer from b[i] to the next CRLF: the value and the
// index after the CRLF.
func parseLine(b []byte, i int) (int, int, bool) {
	end := bytes.Index(b[i:], []byte("\r\n"))
	if end < 0 {
		return 0, 0, false
	}
	n, err := strconv.Atoi(string(b[i : i+end]))
	if err != nil {
		return 0, 0, false
	}
	return n, i + end + 2, true
}

// replyLen returns the length of the one RESP2 reply at the start of b, and
// whether b holds all of it. A malformed reply (a bulk's payload not followed
// by a CRLF) reads as incomplete, as a malformed command does: the shard's
// replies then stall rather than being misframed.
func replyLen(b []byte) (int, bool) {
	if len(b) == 0 {
		return 0, false
	}
	switch b[0] {
	case '+', '-', ':':
		end := bytes.Index(b, []byte("\r\n"))
		return end + 2, end >= 0
	case '$':
		size, j, ok := parseLine(b, 1)
		if !ok {
			return 0, false
		}
		if size < 0 {
			return j, true
		}
		// The payload ends with a CRLF: without one, the reply is
		// malformed, and taking the two bytes after it would misframe the
		// next one.
		if size > len(b) || j+size+2 > len(b) || string(b[j+size:j+size+2]) != "\r\n" {
			return 0, false
		}
		return j + size + 2, true
	case '*':
		n, j, ok := parseLine(b, 1)
		if !ok {
			return 0, false
		}
		for range max(n, 0) {
			m, ok := replyLen(b[j:])
			if !ok {
				return 0, false
			}
			j += m
		}
		return j, true
	}
	return 0, false
}

// arrayElems splits the array reply of n elements at the start of b into its
// elements' encodings (slices of b), with the bytes it took. An error reply
// in its place answers every element with that error.
func arrayElems(b []byte, n int) (elems [][]byte, used int, ok bool) {
	if len(b) > 0 && b[0] == '-' {
		m, ok := replyLen(b)
		if !ok {
			return nil, 0, false
		}
		elems = make([][]byte, n)
		for i := range elems {
			elems[i] = b[:m]
		}
		return elems, m, true
	}
	total, ok := replyLen(b)
	if !ok || b[0] != '*' {
		return nil, 0, false
	}
	_, j, _ := parseLine(b, 1)
	elems = make([][]byte, 0, min(n, 1024))
	for j < total {
		m, _ := replyLen(b[j:])
		elems = append(elems, b[j:j+m])
		j += m
	}
	if len(elems) != n {
		return nil, 0, false
	}
	return elems, total, true
}

// appendCommand appends args as a RESP command.
func appendCommand(b []byte, args ...[]byte) []byte {
	b = append(b, '*')
	b = strconv.AppendInt(b, int64(len(args)), 10)
	b = append(b, "\r\n"...)
	for _, a := range args {
		b = appendBulk(b, a)
	}
	return b
}

// appendBulk appends a as a bulk string.
func appendBulk(b, a []byte) []byte {
	b = append(b, '$')
	b = strconv.AppendInt(b, int64(len(a)), 10)
	b = append(b, "\r\n"...)
	b = append(b, a...)
	return append(b, "\r\n"...)
}
