package main

import (
	"bytes"
	"io"
	"math"
	"strconv"
	"unsafe"

	"github.com/tidwall/redcon"
)

// respReader reads pipelined commands off a connection, as redcon's Reader
// does, with two allocations per read instead of two per command.
//
// redcon's Reader copies each command into a fresh Raw buffer and makes a
// fresh Args slice for it, and grows the slice of commands as it goes: a CPU
// profile of pipelined SETs (16 per read) put those allocations first among
// the gateway's, at about half of its time in malloc, with the garbage
// collector's work on top. This reader parses the RESP multi-bulk commands of
// a read in place, then copies all of them at once into one buffer and slices
// their arguments out of one array: the commands own their bytes exactly as
// redcon's do (a command or an argument may be kept after the next read, by a
// transaction's queue or a batch still in flight, and stays intact), at a
// fraction of the cost. Inline commands (a line of words, as typed at a
// terminal) are rare and are split as Redis splits them (quotes, escapes),
// in time linear in their line (splitInline); their Raw is nil, as nothing
// reads it.
//
// The slice of commands it returns is reused by the next call: use it before
// reading again (the commands themselves may be kept).
type respReader struct {
	r     io.Reader
	limit int // the most bytes one command may take (MaxRequestBytes)
	buf   []byte
	start int // buf[start:end] is read and not yet returned
	end   int
	err   error // a read or protocol error held back while complete commands before it are served

	// unauth: the connection has not authenticated yet (no open tenant),
	// and its commands are held to Redis's limits for such a client
	// (unauthMaxArgs, unauthMaxBulk). The server sets it before each call
	// of ReadCommands, from the state the commands before left.
	unauth bool

	cmds  []redcon.Command
	spans []cmdSpan // per command of the current read
	marks []int     // argument bounds of multi-bulk commands, as offsets in buf

	// part is how far the incomplete multi-bulk command at buf[start] was
	// parsed, so that the next read resumes there (its complete arguments'
	// bounds are marks[:2*part.args]) instead of parsing it from its start
	// again: that cost a parse of all the command had sent per read, so a
	// large command arriving in small reads took time quadratic in its size
	// (a 700 KB MSET of small arguments in 100-byte reads held a core for
	// 20 s).
	part partialCmd

	// buf[lineFrom:lineTo] holds no '\n': the line that starts at lineFrom
	// was incomplete at the last read, and the search for its end resumes
	// at lineTo. Searched from its start on every read, a line of a few
	// MiB (an inline command, a multi-bulk or bulk length) arriving in small
	// reads took time quadratic in its size, as arguments did before part.
	lineFrom, lineTo int
	// searched counts the bytes lineEnd has searched, so that a test can
	// tell a search resumed from one begun again (a time cannot: a line is
	// at most maxInline, and searching it again per read costs milliseconds).
	searched int
}

// partialCmd is the parse state of an incomplete multi-bulk command; count
// is 0 when there is none.
type partialCmd struct {
	count int // the arguments it announced
	args  int // the arguments complete so far
	next  int // the offset in buf of its next argument
}

// cmdSpan is one parsed command: its bytes buf[from:to] and its arguments,
// marks[argFrom:argTo] (pairs of offsets), or, for an inline command, the
// command redcon parsed.
type cmdSpan struct {
	from, to       int
	argFrom, argTo int
	inline         *redcon.Command
}

const readerMinBuf = 4096

// protoError is a malformed request, worded as redcon words it.
type protoError string

func (e protoError) Error() string { return "Protocol error: " + string(e) }

const (
	errBadMultiBulk = protoError("invalid multibulk length")
	errBadBulk      = protoError("invalid bulk length")
	errBadQuotes    = protoError("unbalanced quotes in request")
	errBigInline    = protoError("too big inline request")
	errBigMulti     = protoError("too big mbulk count string")
	errBigBulk      = protoError("too big bulk count string")
	errUnauthMulti  = protoError("unauthenticated multibulk length")
	errUnauthBulk   = protoError("unauthenticated bulk length")
)

// The most arguments, and bytes of one argument, that a multi-bulk command
// of a connection that has not authenticated may announce, as Redis limits
// them (a password is at most a few of them): past that, the request is a
// protocol error, before its bytes are read. Without them anyone who could
// connect made a connection buffer max_request_bytes and parse max_args
// arguments, only to be answered NOAUTH.
const (
	unauthMaxArgs = 10
	unauthMaxBulk = 16 << 10
)

func newRESPReader(r io.Reader, limit int) *respReader {
	return &respReader{r: r, limit: limit, buf: make([]byte, readerMinBuf), lineFrom: -1}
}

// ReadCommands returns the next complete commands, reading as needed. A
// protocol error, a command over the limit (errTooLarge) or a read error ends
// the connection.
func (rr *respReader) ReadCommands() ([]redcon.Command, error) {
	for {
		n, err := rr.parse()
		if err != nil {
			return nil, err
		}
		if n > 0 {
			return rr.commands(), nil
		}
		if rr.err != nil {
			return nil, rr.err
		}
		if err := rr.fill(); err != nil {
			return nil, err
		}
	}
}

// buffered reports whether the reader holds bytes it has read and not yet
// returned as commands, or an error held back behind commands it returned.
func (rr *respReader) buffered() bool { return rr.start < rr.end || rr.err != nil }

// parse records the complete commands in buf[start:end] as spans and
// returns how many there are. It stops at the first incomplete one, and
// after readerMaxScratch commands: the rest are parsed by the next call,
// without a read. Parsed all at once, the commands of one read took memory
// out of proportion to it: a command takes a span and a redcon.Command, and
// an inline one four allocations of its own, so that a buffer grown to
// max_request_bytes (4 MiB) and filled with 2-byte inline commands held
// 2 million of them, about 200 MB, on one connection.
func (rr *respReader) parse() (int, error) {
	clear(rr.spans) // the last parse's inline commands: kept past the length of this one's, they held their reads
	rr.spans, rr.marks = rr.spans[:0], rr.marks[:2*rr.part.args]
	i := rr.start
	for i < rr.end && len(rr.spans) < readerMaxScratch {
		var next int
		var err error
		nspans, nmarks := len(rr.spans), len(rr.marks)
		if rr.buf[i] == '*' {
			next, err = rr.parseMultiBulk(i)
		} else {
			next, err = rr.parseInline(i)
		}
		if err == nil && next-i > rr.limit { // complete, but over the limit
			rr.spans, rr.marks = rr.spans[:nspans], rr.marks[:nmarks]
			err = errTooLarge
		}
		if err != nil {
			if len(rr.spans) > 0 { // serve the commands before it first
				// An unauthenticated limit is checked again once they
				// ran: an AUTH among them lifts it, as in Redis, which
				// reads a command only after the one before ran.
				if err != errUnauthMulti && err != errUnauthBulk {
					rr.err = err
				}
				break
			}
			return 0, err
		}
		if next < 0 { // incomplete
			break
		}
		i = next
	}
	if len(rr.spans) == 0 && i > rr.start { // empty inline lines only
		rr.start = i
	}
	return len(rr.spans), nil
}

// parseMultiBulk parses the command "*<n>\r\n" then n times "$<len>\r\n<bytes>\r\n"
// at i. It returns the offset after it, or -1 if it is incomplete.
func (rr *respReader) parseMultiBulk(i int) (next int, err error) {
	argFrom := len(rr.marks)
	resume := rr.part.count > 0 && i == rr.start
	if resume {
		argFrom = 0 // marks holds its complete arguments' bounds
	}
	defer func() {
		if next < 0 && rr.part.count == 0 { // malformed, or incomplete and not resumable: its arguments are not kept
			rr.marks = rr.marks[:argFrom]
		}
	}()
	b := rr.buf[:rr.end]
	count, done, j := rr.part.count, rr.part.args, rr.part.next
	if !resume {
		var ok bool
		count, j, ok, err = rr.readCount(i+1, errBadMultiBulk)
		if err != nil || !ok {
			return -1, err
		}
		if count > math.MaxInt32 { // as Redis refuses one
			return -1, errBadMultiBulk
		}
		if count > unauthMaxArgs && rr.unauth {
			return -1, errUnauthMulti
		}
		if count <= 0 { // an empty command: Redis skips it and serves the next
			return j, nil
		}
		done = 0
	}
	rr.part = partialCmd{}
	for a := done; a < count; a++ {
		if j >= len(b) {
			rr.suspend(i, count, a, j)
			return -1, nil
		}
		if b[j] != '$' {
			return -1, protoError("expected '$', got '" + string(b[j]) + "'")
		}
		size, k, ok, err := rr.readCount(j+1, errBadBulk)
		if err != nil {
			return -1, err
		}
		if ok && size < 0 {
			return -1, errBadBulk
		}
		if ok && size > unauthMaxBulk && rr.unauth {
			return -1, errUnauthBulk
		}
		if ok && size > rr.limit-(k-i)-2 {
			// It cannot fit: refused now, as Redis refuses a bulk past
			// proto-max-bulk-len. Read on to the limit first, a bulk
			// announced at 2 GB and never sent held the connection
			// until idle_timeout, its buffer growing with each byte.
			return -1, errTooLarge
		}
		if !ok || size > len(b)-k-2 {
			rr.suspend(i, count, a, j)
			return -1, nil
		}
		if b[k+size] != '\r' || b[k+size+1] != '\n' {
			return -1, errBadBulk
		}
		rr.marks = append(rr.marks, k, k+size)
		j = k + size + 2
	}
	rr.spans = append(rr.spans, cmdSpan{from: i, to: j, argFrom: argFrom, argTo: len(rr.marks)})
	return j, nil
}

// suspend keeps the parse state of the incomplete multi-bulk command at i,
// announced with count arguments, whose first args are complete (bounds in
// marks) and whose next starts at j, if it is the first command of the
// buffer: the only one whose bounds are then kept in marks.
func (rr *respReader) suspend(i, count, args, j int) {
	if i != rr.start {
		return
	}
	rr.part = partialCmd{count: count, args: args, next: j}
}

// readCount reads the decimal number that ends with "\r\n" at buf[i:], and
// returns it with the offset after the "\r\n"; ok is false if the line is
// not complete yet. A line that is not a number is bad. A line still
// incomplete past maxInline bytes from its '*' or '$' is too big, as Redis
// refuses it ("too big mbulk count string", "too big bulk count string"):
// unbounded, it was read up to max_request_bytes, which a connection that
// must still authenticate could then hold.
func (rr *respReader) readCount(i int, bad error) (n, next int, ok bool, err error) {
	nl := rr.lineEnd(i)
	if nl < 0 {
		if rr.end-(i-1) > maxInline {
			if bad == errBadMultiBulk {
				return 0, 0, false, errBigMulti
			}
			return 0, 0, false, errBigBulk
		}
		return 0, 0, false, nil
	}
	nl -= i
	line := rr.buf[i : i+nl]
	if len(line) == 0 || line[len(line)-1] != '\r' {
		return 0, 0, false, bad
	}
	n, err = atoi(line[:len(line)-1])
	if err != nil {
		return 0, 0, false, bad
	}
	return n, i + nl + 1, true, nil
}

// lineEnd returns the offset of the first '\n' of buf[from:end], or -1,
// resuming the search where the last one for the line at from stopped.
func (rr *respReader) lineEnd(from int) int {
	at := from
	if from == rr.lineFrom {
		at = max(at, rr.lineTo)
	}
	k := bytes.IndexByte(rr.buf[at:rr.end], '\n')
	if k >= 0 {
		rr.searched += k + 1
		return at + k
	}
	rr.searched += rr.end - at
	rr.lineFrom, rr.lineTo = from, rr.end
	return -1
}

// atoi parses a decimal number in b without copying it, as Redis's
// string2ll reads a length: digits after an optional '-', without a '+', a
// leading zero (but in "0") or "-0", and no overflow. strconv.Atoi alone,
// as redcon reads one, took "+1", "01" and "-0", which Redis refuses.
func atoi(b []byte) (int, error) {
	digits := b
	if len(digits) > 0 && digits[0] == '-' {
		digits = digits[1:]
	}
	if len(digits) == 0 || digits[0] < '0' || digits[0] > '9' || digits[0] == '0' && len(b) > 1 {
		return 0, strconv.ErrSyntax
	}
	return strconv.Atoi(unsafe.String(unsafe.SliceData(b), len(b)))
}

// maxInline bounds an inline command's line, as Redis's
// PROTO_INLINE_MAX_SIZE does: an inline command is typed, and one of
// max_request_bytes (4 MiB of one-letter words) held about 16 times its
// bytes while it was split.
const maxInline = 64 << 10

// commands copies the parsed commands out of the read buffer, into one new
// buffer and one new array of arguments, and consumes them.
func (rr *respReader) commands() []redcon.Command {
	from, to := rr.spans[0].from, rr.spans[len(rr.spans)-1].to
	data := make([]byte, to-from)
	copy(data, rr.buf[from:to])
	args := make([][]byte, len(rr.marks)/2)
	for k := range args {
		args[k] = data[rr.marks[2*k]-from : rr.marks[2*k+1]-from : rr.marks[2*k+1]-from]
	}
	// The last call's commands are the caller's now: kept past this call's
	// length (fewer commands), each held its read's copy, which release
	// drops only at a read with nothing pending, and a client that always
	// left a command partly sent made every read one command shorter than
	// the one before keep one more: up to readerMaxScratch of them, each
	// up to max_request_bytes, on one connection.
	clear(rr.cmds)
	rr.cmds = rr.cmds[:0]
	for _, s := range rr.spans {
		if s.inline != nil {
			rr.cmds = append(rr.cmds, *s.inline)
			continue
		}
		rr.cmds = append(rr.cmds, redcon.Command{
			Raw:  data[s.from-from : s.to-from : s.to-from],
			Args: args[s.argFrom/2 : s.argTo/2 : s.argTo/2],
		})
	}
	rr.start = to
	return rr.cmds
}

// release drops what the commands last returned still hold, once they are
// served and nothing is pending: their copy of the read (through cmds past
// its length) and, after a command of many arguments or a long pipeline,
// the room of its argument bounds and spans. Kept, one command of 700,000
// empty arguments (4 MiB) left a connection holding 12 MB for as long as it
// stayed open.
func (rr *respReader) release() {
	clear(rr.cmds[:cap(rr.cmds)])
	if cap(rr.cmds) > readerMaxScratch {
		rr.cmds = nil
	}
	if cap(rr.spans) > readerMaxScratch {
		rr.spans = nil
	}
	if cap(rr.marks) > 4*readerMaxScratch {
		rr.marks = nil
	}
}

// readerMaxScratch is the most commands one call of ReadCommands returns
// (parse), the most commands (spans) a reader keeps room for between reads,
// and a quarter of the argument bounds it keeps room for.
const readerMaxScratch = 1024

// fill reads more bytes, making room first: it moves the unread bytes to the
// front, and doubles the buffer when a command needs more, up to the limit.
func (rr *respReader) fill() error {
	pending := rr.end - rr.start
	if pending >= rr.limit {
		return errTooLarge
	}
	if rr.start > 0 {
		copy(rr.buf, rr.buf[rr.start:rr.end])
		if rr.part.count > 0 { // its offsets move with it
			rr.part.next -= rr.start
			for k := range rr.marks[:2*rr.part.args] {
				rr.marks[k] -= rr.start
			}
		}
		if rr.lineFrom >= rr.start { // so does the line searched last
			rr.lineFrom, rr.lineTo = rr.lineFrom-rr.start, rr.lineTo-rr.start
		} else {
			rr.lineFrom = -1
		}
		rr.start, rr.end = 0, pending
	}
	if pending == 0 && len(rr.buf) > readerMinBuf {
		rr.buf = make([]byte, readerMinBuf) // a large command is gone: give its room back
	}
	if pending == 0 && rr.part.count == 0 {
		rr.release()
	}
	if rr.end == len(rr.buf) {
		// min(2*len, limit+1), without limit+1, which overflows at
		// the largest int (a limit meaning none).
		size := min(2*len(rr.buf)-1, rr.limit) + 1
		if size <= len(rr.buf) {
			return errTooLarge
		}
		grown := make([]byte, size)
		copy(grown, rr.buf[:rr.end])
		rr.buf = grown
	}
	n, err := rr.r.Read(rr.buf[rr.end:])
	rr.end += n
	if err != nil {
		if n == 0 {
			return err
		}
		rr.err = err // after the commands these bytes complete
	}
	return nil
}
