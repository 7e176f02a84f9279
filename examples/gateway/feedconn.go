package main

import (
	"bufio"
	"bytes"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"strconv"
	"time"
)

// The caching tier's subscriber connection to one Redis shard, on a plain
// socket with a parser of its own for the few frames a subscribed RESP2
// connection receives: arrays of bulk strings and integers (message,
// pmessage, subscribe and psubscribe confirmations) and error lines.
//
// Under 200,000 SETs a second every SET brings one keyspace message, and the
// general client that read them before (rueidis: a message value per frame,
// a string per element, a hook call through its pipe) took about 16% of the
// gateway's CPU doing so. This reader parses each frame in place in its read
// buffer and allocates only the key it hands to the cache.

// feedFrameKind is what a subscribed connection's frame says.
type feedFrameKind uint8

const (
	frameMessage    feedFrameKind = iota + 1 // a message on a subscribed channel
	framePMessage                            // a message on a channel matching a subscribed pattern
	frameSubscribe                           // SUBSCRIBE confirmed
	framePSubscribe                          // PSUBSCRIBE confirmed
	frameOther                               // a frame of another kind (unsubscribe, pong...): counted, not applied
)

// feedFrame is one parsed frame. Its byte slices point into the reader's
// buffer and are valid until the next call to next.
type feedFrame struct {
	kind             feedFrameKind
	channel, payload []byte
}

// errFeedRefused reports an error reply on a subscribed connection: the
// server refused a subscription (an ACL without the channel, NOPERM).
var errFeedRefused = errors.New("caching tier feed: server error")

// errFeedProtocol reports a frame that a subscribed connection cannot send.
var errFeedProtocol = errors.New("caching tier feed: protocol error")

// feedMaxBulk bounds one element: a key's channel name, a marker's payload.
// A frame is parsed in the read buffer, so it must fit there. Redis keys may
// be up to 512 MB; a notification for a key over 1 MiB fails the connection,
// which is dialed again, and the resubscription resets the shard's cache (the
// contract holds: nothing is served that the feed did not vouch for).
const feedMaxBulk = 1 << 20

// feedBufSize holds the largest frame: one element at the bound, the others
// (kind, pattern, an event name) small.
const feedBufSize = feedMaxBulk + 64<<10

// feedReader parses the frames of a subscribed connection.
type feedReader struct {
	r    *bufio.Reader
	elts [4][]byte // the current frame's elements (at most 4: pmessage)
}

func newFeedReader(r io.Reader) *feedReader {
	return &feedReader{r: bufio.NewReaderSize(r, feedBufSize)}
}

// next reads one frame. An error reply from the server is returned as an
// error, as is anything that is not a frame a subscribed connection sends.
func (fr *feedReader) next() (feedFrame, error) {
	if f, ok := fr.nextIfBuffered(); ok {
		return f, nil
	}
	return fr.nextGeneral()
}

// nextGeneral is next the general way, a line at a time, reading from the
// connection as it needs: for a caller that found nextIfBuffered false.
func (fr *feedReader) nextGeneral() (feedFrame, error) {
	line, err := fr.line()
	if err != nil {
		return feedFrame{}, err
	}
	switch line[0] {
	case '-':
		return feedFrame{}, fmt.Errorf("%w: %s", errFeedRefused, line[1:])
	case '*':
	default:
		return feedFrame{}, fmt.Errorf("%w: unexpected %q", errFeedProtocol, truncate(line, 40))
	}
	n, err := parseCount(line[1:])
	if err != nil || n < 1 || n > len(fr.elts) {
		return feedFrame{}, fmt.Errorf("%w: array header %q", errFeedProtocol, truncate(line, 40))
	}
	// The elements are peeked, not consumed, and sliced once all are in the
	// buffer: peeking further may move the buffered bytes (bufio slides
	// them to the front when it reads more), so earlier slices would not
	// hold. Their bounds are kept as offsets, and the frame is discarded at
	// the end.
	var bounds [len(fr.elts)][2]int
	consumed := 0
	for i := range n {
		from, to, used, err := fr.element(consumed)
		if err != nil {
			return feedFrame{}, err
		}
		bounds[i] = [2]int{from, to}
		consumed += used
	}
	buf, err := fr.r.Peek(consumed)
	if err != nil {
		return feedFrame{}, err
	}
	for i := range n {
		fr.elts[i] = buf[bounds[i][0]:bounds[i][1]]
	}
	f := fr.classify(n)
	if _, err := fr.r.Discard(consumed); err != nil {
		return feedFrame{}, err
	}
	return f, nil
}

// nextIfBuffered reads the next frame if it is whole in the buffer and parses
// in one pass (nextBuffered), without reading from the connection; else it
// reads nothing and reports false, and the caller calls next.
func (fr *feedReader) nextIfBuffered() (feedFrame, bool) {
	n, used, ok := fr.nextBuffered()
	if !ok {
		return feedFrame{}, false
	}
	f := fr.classify(n)
	if _, err := fr.r.Discard(used); err != nil {
		return feedFrame{}, false // cannot happen: used bytes are buffered
	}
	return f, true
}

// classify returns the frame whose n elements are in fr.elts.
func (fr *feedReader) classify(n int) feedFrame {
	f := feedFrame{kind: frameOther}
	switch kind := fr.elts[0]; {
	case n == 3 && string(kind) == "message":
		f.kind, f.channel, f.payload = frameMessage, fr.elts[1], fr.elts[2]
	case n == 4 && string(kind) == "pmessage":
		f.kind, f.channel, f.payload = framePMessage, fr.elts[2], fr.elts[3]
	case n == 3 && string(kind) == "subscribe":
		f.kind, f.channel = frameSubscribe, fr.elts[1]
	case n == 3 && string(kind) == "psubscribe":
		f.kind, f.channel = framePSubscribe, fr.elts[1]
	}
	return f
}

// nextBuffered parses, in one pass over the buffered bytes, a frame that is
// all in the buffer and well formed in the plainest way (a one-digit array
// header, bulk strings with a decimal length, integers), the frames of a busy
// feed; it puts the frame's n elements in fr.elts and returns the bytes the
// frame takes, which the caller discards. It consumes nothing and reports
// false for anything else (a frame still arriving, an error reply, a frame
// next would reject), which next then parses the general way, one line at a
// time: nextBuffered accepts only frames that next accepts, and reads them
// alike (TestFeedReaderBufferedAgrees).
func (fr *feedReader) nextBuffered() (n, used int, ok bool) {
	b, _ := fr.r.Peek(fr.r.Buffered()) // buffered: never blocks
	if len(b) < 4 || b[0] != '*' || b[2] != '\r' || b[3] != '\n' {
		return 0, 0, false
	}
	n = int(b[1]) - '0'
	if n < 1 || n > len(fr.elts) {
		return 0, 0, false
	}
	i := 4
	for k := range n {
		if i >= len(b) {
			return 0, 0, false
		}
		switch b[i] {
		case '$':
			j, size := i+1, 0
			for ; j < len(b) && b[j] >= '0' && b[j] <= '9' && j-i <= 7; j++ {
				size = size*10 + int(b[j]-'0')
			}
			from := j + 2 // a leading zero ("$05") is refused below, as atoi refuses it
			end := from + size
			if j == i+1 || b[i+1] == '0' && j > i+2 || size > feedMaxBulk || end+2 > len(b) || b[j] != '\r' || b[j+1] != '\n' ||
				b[end] != '\r' || b[end+1] != '\n' {
				return 0, 0, false
			}
			fr.elts[k], i = b[from:end], end+2
		case ':':
			nl := bytes.IndexByte(b[i:], '\n')
			if nl < 3 || b[i+nl-1] != '\r' { // at least one byte between ':' and CRLF
				return 0, 0, false
			}
			fr.elts[k], i = b[i+1:i+nl-1], i+nl+1
		default:
			return 0, 0, false
		}
	}
	return n, i, true
}

// line reads a header line (without its CRLF), consuming it.
func (fr *feedReader) line() ([]byte, error) {
	line, err := fr.r.ReadSlice('\n')
	if err != nil {
		if errors.Is(err, bufio.ErrBufferFull) {
			return nil, fmt.Errorf("%w: header line over %d bytes", errFeedProtocol, fr.r.Size())
		}
		return nil, err
	}
	if len(line) < 3 || line[len(line)-2] != '\r' {
		return nil, fmt.Errorf("%w: line %q", errFeedProtocol, truncate(line, 40))
	}
	return line[:len(line)-2], nil
}

// element peeks the array element that starts at offset off of the unread
// buffer: a bulk string (its bytes) or an integer (its digits). It returns
// the element's bounds as offsets in the unread buffer, and the bytes it
// takes, which the caller discards.
func (fr *feedReader) element(off int) (from, to, used int, err error) {
	hdr, err := fr.peekLine(off)
	if err != nil {
		return 0, 0, 0, err
	}
	switch hdr[0] {
	case ':':
		return off + 1, off + len(hdr) - 2, len(hdr), nil
	case '$':
	default:
		return 0, 0, 0, fmt.Errorf("%w: element %q", errFeedProtocol, truncate(hdr, 40))
	}
	size, err := parseCount(hdr[1 : len(hdr)-2])
	if err != nil || size < 0 || size > feedMaxBulk {
		return 0, 0, 0, fmt.Errorf("%w: bulk header %q", errFeedProtocol, truncate(hdr, 40))
	}
	total := len(hdr) + size + 2
	if off+total > fr.r.Size() {
		return 0, 0, 0, fmt.Errorf("%w: frame over %d bytes", errFeedProtocol, fr.r.Size())
	}
	b, err := fr.r.Peek(off + total)
	if err != nil {
		if errors.Is(err, io.EOF) {
			err = io.ErrUnexpectedEOF
		}
		return 0, 0, 0, err
	}
	from = off + len(hdr)
	if b[from+size] != '\r' || b[from+size+1] != '\n' {
		return 0, 0, 0, fmt.Errorf("%w: bulk string not ended by CRLF", errFeedProtocol)
	}
	return from, from + size, total, nil
}

// peekLine returns the unread bytes from off up to and including the next LF,
// without consuming them. It reads no more than it needs: a frame may be the
// last bytes the server sends for a while.
func (fr *feedReader) peekLine(off int) ([]byte, error) {
	searched := off
	for {
		n := fr.r.Buffered()
		b, _ := fr.r.Peek(n) // buffered: never blocks
		for i := searched; i < len(b); i++ {
			if b[i] != '\n' {
				continue
			}
			if i-off < 3 || b[i-1] != '\r' {
				return nil, fmt.Errorf("%w: element line %q", errFeedProtocol, truncate(b[off:i+1], 40))
			}
			return b[off : i+1], nil
		}
		searched = max(searched, len(b))
		if n >= fr.r.Size() {
			return nil, fmt.Errorf("%w: frame over %d bytes", errFeedProtocol, fr.r.Size())
		}
		if _, err := fr.r.Peek(n + 1); err != nil { // read at least one byte more
			if errors.Is(err, io.EOF) {
				err = io.ErrUnexpectedEOF
			}
			return nil, err
		}
	}
}

// parseCount parses a decimal count (a leading minus allowed, as in $-1),
// as the request reader does (atoi).
func parseCount(b []byte) (int, error) {
	n, err := atoi(b)
	if err != nil {
		return 0, errFeedProtocol
	}
	return n, nil
}

func truncate(b []byte, n int) []byte {
	if len(b) > n {
		return b[:n]
	}
	return b
}

// feedDial opens a subscriber connection to addr within dialTimeout,
// authenticates it if user or password is set, and names it. Closing ctx
// closes the connection.
func feedDial(ctx context.Context, addr, user, password string, tlsConf *tls.Config, dialTimeout time.Duration) (net.Conn, *feedReader, func(), error) {
	d := net.Dialer{Timeout: dialTimeout, KeepAlive: time.Second}
	c, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return nil, nil, nil, err
	}
	if tlsConf != nil {
		c = tls.Client(c, tlsConf)
	}
	stop := context.AfterFunc(ctx, func() { c.Close() })
	done := func() { stop(); c.Close() }
	if tc, ok := c.(*tls.Conn); ok {
		if err := feedHandshake(tc); err != nil {
			done()
			return nil, nil, nil, err
		}
	}
	fr := newFeedReader(&deadlineReader{c: c, d: feedReadTimeout})
	var cmds [][]string
	if password != "" {
		if user != "" {
			cmds = append(cmds, []string{"AUTH", user, password})
		} else {
			cmds = append(cmds, []string{"AUTH", password})
		}
	}
	cmds = append(cmds, []string{"CLIENT", "SETNAME", clientName + "-feed"})
	for _, cmd := range cmds {
		if err := writeCommand(c, cmd...); err != nil {
			done()
			return nil, nil, nil, err
		}
		line, err := fr.line()
		if err != nil {
			done()
			return nil, nil, nil, err
		}
		if line[0] != '+' && !(cmd[0] == "CLIENT" && bytes.HasPrefix(line, []byte("-NOPERM"))) {
			// A NOPERM for CLIENT SETNAME (an ACL user without CLIENT) leaves
			// the connection unnamed; failed, the feed never connected.
			done()
			return nil, nil, nil, fmt.Errorf("caching tier feed: %s: %s", cmd[0], line)
		}
	}
	return c, fr, done, nil
}

// feedHandshake runs c's TLS handshake within feedReadTimeout. Left to the
// first write, it ran with no deadline (the reads' deadlines are set by
// deadlineReader, after it): a shard that accepted the connection and never
// answered the handshake held the feed, and its redial loop, until the
// gateway stopped.
func feedHandshake(c *tls.Conn) error {
	if err := c.SetDeadline(time.Now().Add(feedReadTimeout)); err != nil {
		return err
	}
	if err := c.Handshake(); err != nil {
		return fmt.Errorf("caching tier feed: TLS handshake: %w", err)
	}
	return c.SetDeadline(time.Time{})
}

// feedReadTimeout is the longest a subscriber connection may stay silent. The
// gateway publishes a checkpoint marker on it every 100 ms at most, so a
// silent connection is a dead one (a shard that stopped answering without
// closing the socket): it is closed and dialed again.
const feedReadTimeout = 5 * time.Second

// deadlineReader renews a connection's read deadline as it reads, at most
// four times per timeout (a deadline set per read costs a timer update each).
//
// It also batches a busy feed's reads: after a read that brought data but
// left most of the buffer empty (notifications arriving a few at a time, as
// under a stream of writes), the next read waits feedLinger first, so that it
// finds many notifications at once instead of waking the reader, reading a
// few and trying again (a read that finds nothing) for every few writes.
// Invalidations then reach the cache up to feedLinger later, which the
// staleness bound covers: checkpoints, which vouch for the cache, are
// published every 100 ms at most and go through the same reads.
type deadlineReader struct {
	c         net.Conn
	d         time.Duration
	last      time.Time
	trickling bool                // the last read brought data and left most of the buffer empty
	sleep     func(time.Duration) // time.Sleep when nil (tests count the waits)
}

// feedLinger is how long a read of a trickling feed waits before reading.
const feedLinger = 200 * time.Microsecond

func (r *deadlineReader) Read(p []byte) (int, error) {
	if r.trickling {
		if r.sleep != nil {
			r.sleep(feedLinger)
		} else {
			time.Sleep(feedLinger)
		}
	}
	if now := time.Now(); now.Sub(r.last) > r.d/4 {
		if err := r.c.SetReadDeadline(now.Add(r.d)); err != nil {
			return 0, err
		}
		r.last = now
	}
	n, err := r.c.Read(p)
	r.trickling = n > 0 && n < len(p)/2
	return n, err
}

// writeCommand writes one command as a RESP array of bulk strings.
func writeCommand(w io.Writer, args ...string) error {
	b := make([]byte, 0, 64)
	b = append(b, '*')
	b = strconv.AppendInt(b, int64(len(args)), 10)
	b = append(b, '\r', '\n')
	for _, a := range args {
		b = append(b, '$')
		b = strconv.AppendInt(b, int64(len(a)), 10)
		b = append(b, '\r', '\n')
		b = append(b, a...)
		b = append(b, '\r', '\n')
	}
	_, err := w.Write(b)
	return err
}
