package main

import (
	"crypto/tls"
	"net"
	"time"
)

// connDeadlines keeps a connection's read and write deadlines, for serveConn,
// the one goroutine that reads from the connection and flushes to it.
//
// Deadlines are pushed forward at most every eighth of their timeout (a
// connection idle for between 7/8 and all of IdleTimeout is closed):
// setting one per command is a timer update per command.
//
// Over TLS a connection also writes within Read: the handshake and the
// answers to KeyUpdate requests. Those writes end with the reads, at the
// read deadline, which is also the write deadline while it reads:
// without a deadline, a client that asked for KeyUpdates and read
// nothing blocked one for ever, out of reach of the read deadline
// (crypto/tls asks for both before Read); with the last reply's, long
// past on a connection idle for write_timeout, the answer to a client's
// KeyUpdate failed, crypto/tls kept that failure for the next write, and
// the connection was lost with the reply to the command after it. So a
// TLS connection sets its write deadline twice per read that has
// replies: write_timeout for them, then back to the read deadline.
type connDeadlines struct {
	conn      net.Conn
	idle, wto time.Duration // IdleTimeout and WriteTimeout
	isTLS     bool

	readSet, writeSet, readDeadline time.Time
	writeForRead                    bool // the write deadline is readDeadline

	// authBy, until the connection authenticates where tenants must AUTH:
	// its read deadline is no later (auth_timeout from its accept, its TLS
	// handshake included, or from a RESET that ended its authentication),
	// however often it sends. Zero otherwise.
	authBy time.Time
}

func newConnDeadlines(conn net.Conn, idle, wto time.Duration) *connDeadlines {
	_, isTLS := conn.(*tls.Conn)
	return &connDeadlines{conn: conn, idle: idle, wto: wto, isTLS: isTLS}
}

// authenticated lifts auth_timeout: the next read pushes the read deadline
// to idle_timeout, at once.
func (d *connDeadlines) authenticated() { d.authBy, d.readSet = time.Time{}, time.Time{} }

// unauthenticated sets auth_timeout to end at by: the next read's deadline
// is no later, at once (a RESET ended the authentication).
func (d *connDeadlines) unauthenticated(by time.Time) { d.authBy, d.readSet = by, time.Time{} }

// flush gives the replies held in wr their write deadline, then flushes them.
func (d *connDeadlines) flush(wr *replyWriter) error {
	if now := time.Now(); d.writeForRead || now.Sub(d.writeSet) >= d.wto/8 {
		_ = d.conn.SetWriteDeadline(now.Add(d.wto))
		d.writeSet, d.writeForRead = now, false
	}
	return wr.Flush()
}

// progressed pushes the write deadline of a flush forward, once part of it
// has been written (at most every eighth of write_timeout, as flush does).
func (d *connDeadlines) progressed() {
	if now := time.Now(); !d.writeForRead && now.Sub(d.writeSet) >= d.wto/8 {
		_ = d.conn.SetWriteDeadline(now.Add(d.wto))
		d.writeSet = now
	}
}

// progressWriter is the connection as a replyWriter writes to it: it writes
// what a Flush holds maxHeldReplies bytes at a time, the write deadline
// pushed forward after each, so that write_timeout cuts a client that stops
// reading, not one that reads a large reply slowly. A reply of many values
// was flushed that way already (replyWriter.wrote), but one large value
// went out in one write that had to end within write_timeout: a GET of a
// 3 MiB value read at 3 MiB/s was cut after 300 ms of a write_timeout of
// 300 ms, where an MGET of 3 MiB of values was served whole
// (TestSlowReaderGetsLargeReplyWhole).
type progressWriter struct{ d *connDeadlines }

func (p progressWriter) Write(b []byte) (int, error) {
	n := 0
	for n < len(b) {
		if n > 0 {
			p.d.progressed()
		}
		k, err := p.d.conn.Write(b[n:min(len(b), n+maxHeldReplies)])
		n += k
		if err != nil {
			return n, err
		}
	}
	return n, nil
}

// beforeRead sets the deadlines for the next read of rd, or reports false
// when the connection is to end: s is closing and rd holds nothing more.
func (d *connDeadlines) beforeRead(s *Server, rd *respReader) bool {
	// At Shutdown, the commands a read brought that one call of
	// ReadCommands did not return (past readerMaxScratch) are run and
	// answered, as the others: they were dropped unanswered. Shutdown
	// set the read deadline to now, after this connection last pushed
	// it: a read for more fails at once.
	pushed := false
	if now := time.Now(); now.Sub(d.readSet) >= d.idle/8 {
		s.mu.Lock()
		if s.closing {
			s.mu.Unlock()
			if !rd.buffered() {
				return false
			}
		} else {
			d.readDeadline = now.Add(d.idle)
			if !d.authBy.IsZero() && d.authBy.Before(d.readDeadline) {
				d.readDeadline = d.authBy
			}
			_ = d.conn.SetReadDeadline(d.readDeadline)
			s.mu.Unlock()
			d.readSet, pushed = now, true
		}
	} else if s.closed.Load() && !rd.buffered() {
		return false
	}
	if d.isTLS && (pushed || !d.writeForRead) {
		_ = d.conn.SetWriteDeadline(d.readDeadline)
		d.writeForRead = true
	}
	return true
}
