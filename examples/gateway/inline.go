package main

import "github.com/tidwall/redcon"

// Inline commands: a line of words instead of a RESP multi-bulk, as telnet
// and redis-cli's inline mode send them (the respReader's other form).

// parseInline parses the line at i as an inline command, with Redis's rules
// (quotes, escapes: splitInline). A blank line is skipped. It returns the
// offset after the line, or -1 if the line is incomplete; a line longer than
// maxInline, complete or not, is errBigInline. Its end, LF or CRLF, is not
// counted: the CR was, and a line of exactly 64 KiB ended by CRLF, which
// Redis reads, was refused (TestInlineLineOf64KiBAsRedis).
func (rr *respReader) parseInline(i int) (int, error) {
	nl := rr.lineEnd(i)
	if nl < 0 {
		if inlineLen(rr.buf, i, rr.end) > maxInline { // a last CR may start its CRLF
			return -1, errBigInline
		}
		return -1, nil
	}
	if inlineLen(rr.buf, i, nl) > maxInline {
		return -1, errBigInline
	}
	next := nl + 1
	line := rr.buf[i:next]
	words := line[:len(line)-1]
	if len(words) > 0 && words[len(words)-1] == '\r' {
		words = words[:len(words)-1]
	}
	args, err := splitInline(words)
	if err != nil {
		return -1, err
	}
	if len(args) == 0 { // a blank line: skipped, as Redis does
		return next, nil
	}
	// No Raw: nothing reads it, and built as redcon.Parse builds it (the
	// arguments again, in multi-bulk form, in a buffer grown by appends) it
	// was 7 bytes per one-letter argument of 2 and 8 MB allocated per MiB.
	rr.spans = append(rr.spans, cmdSpan{from: i, to: next, inline: &redcon.Command{Args: args}})
	return next, nil
}

// inlineLen is the length of the line buf[from:to] without a last CR.
func inlineLen(buf []byte, from, to int) int {
	if to > from && buf[to-1] == '\r' {
		return to - from - 1
	}
	return to - from
}

// splitInline splits the words of an inline command, its line without the
// line end, as Redis's sdssplitargs does, so that a line typed at a terminal
// stores the bytes it stores on Redis: words are separated by white space
// (space, tab, CR, vertical tab, form feed); a double quote starts a part in
// which \xHH is the byte of hex HH, \n, \r, \t, \b and \a the control
// characters, and a backslash before any other byte that byte; a single quote
// starts a part in which only \' is an escape (a backslash is itself); a
// quote may start in a word ("a"b c"" is one argument, ab c), its closing
// quote must be followed by white space or the end of the line, and a quote
// left open is an error. A NUL byte is a byte of its word (Redis never finds
// the end of such a line). The arguments are copies, in one buffer (an empty
// one is not nil: a nil reply is null). It takes time linear in the line:
// redcon.Parse, which split them before (by rules of its own: no \xHH, tabs
// inside words, escapes between single quotes), allocates and clears the
// rest of the line at every space, so that one inline command of 256 KiB of
// spaces held a core for 37 s, and one of max_request_bytes (4 MiB) for
// hours.
func splitInline(words []byte) ([][]byte, error) {
	// Each argument starts a run of bytes other than white space (a quoted
	// one may hold more): sized by them, args is never grown, where appends
	// allocated twice the 24 bytes per argument it holds, per argument of
	// as little as 2 bytes of input.
	runs := 0
	for i, c := range words {
		if !inlineSpace(c) && (i == 0 || inlineSpace(words[i-1])) {
			runs++
		}
	}
	if runs == 0 { // a blank line
		return nil, nil
	}
	data := make([]byte, 0, len(words)) // escapes only shorten a word: it is never grown
	args := make([][]byte, 0, runs)
	i := 0
	for {
		for i < len(words) && inlineSpace(words[i]) {
			i++
		}
		if i == len(words) {
			return args, nil
		}
		from := len(data)
	word:
		for i < len(words) {
			switch c := words[i]; c {
			case ' ', '\t', '\r': // a word ends at these, not at \v or \f
				break word
			case '"', '\'':
				var err error
				if data, i, err = appendQuoted(data, words, i); err != nil {
					return nil, err
				}
				break word
			default:
				data = append(data, c)
				i++
			}
		}
		args = append(args, data[from:len(data):len(data)])
	}
}

// inlineSpace reports whether c separates the words of an inline command,
// as C's isspace ('\n' ends the line before).
func inlineSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f' || c == '\n'
}

// appendQuoted appends to data the quoted part of a word that starts at
// words[i], a quote, by sdssplitargs's rules (splitInline), and returns the
// offset after its closing quote, which ends the word.
func appendQuoted(data, words []byte, i int) ([]byte, int, error) {
	q := words[i]
	for i++; i < len(words); i++ {
		b := words[i]
		switch {
		case b == q:
			if i+1 < len(words) && !inlineSpace(words[i+1]) {
				return nil, 0, errBadQuotes
			}
			return data, i + 1, nil
		case b != '\\' || i+1 == len(words):
		case q == '\'':
			if words[i+1] == '\'' {
				b = '\''
				i++
			}
		case words[i+1] == 'x' && i+3 < len(words) && isHex(words[i+2]) && isHex(words[i+3]):
			b = unhex(words[i+2])<<4 | unhex(words[i+3])
			i += 3
		default:
			i++
			switch b = words[i]; b {
			case 'n':
				b = '\n'
			case 'r':
				b = '\r'
			case 't':
				b = '\t'
			case 'b':
				b = '\b'
			case 'a':
				b = '\a'
			}
		}
		data = append(data, b)
	}
	return nil, 0, errBadQuotes // the quote is not closed
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

// unhex is the value of the hex digit c (isHex).
func unhex(c byte) byte {
	switch {
	case c <= '9':
		return c - '0'
	case c >= 'a':
		return c - 'a' + 10
	}
	return c - 'A' + 10
}
