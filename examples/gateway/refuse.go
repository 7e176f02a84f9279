package main

import (
	"bytes"
	"crypto/tls"
	"errors"
	"io"
	"net"
	"strings"
	"time"

	"github.com/tidwall/redcon"
)

// Refusals: connections over max_conns, and requests the reader refused
// (malformed or oversized), whose connection then ends.

// refusalLogEvery is the least time between two log lines about connections
// refused at max_conns.
const refusalLogEvery = 10 * time.Second

// maxRefusing bounds the refused connections whose message is being written
// at once (each for at most a second).
const maxRefusing = 64

// refuse answers a connection over max_conns, or one accepted during
// Shutdown, with an error and closes it.
func (s *Server) refuse(c net.Conn, closing bool) {
	s.refused.Add(1)
	msg := "-ERR max number of clients reached\r\n"
	if closing {
		msg = "-ERR server is shutting down\r\n"
	}
	now := time.Now()
	if !closing {
		s.logRefusal(now)
	}
	// Off the accept loop, and bounded both ways: over TLS the
	// write first runs the handshake, which reads from the client.
	// At most maxRefusing at once: past that, a flood of connects
	// is closed without the message rather than held open.
	select {
	case s.refusing <- struct{}{}:
	default:
		_ = c.Close()
		return
	}
	// The second is set before the connection is registered: once it is,
	// cutRefusals may set the deadline to now, which a later call here
	// would push back by a second.
	_ = c.SetDeadline(now.Add(time.Second))
	s.mu.Lock()
	if s.refusalsCut {
		// Shutdown no longer waits for refusals: the connection gets
		// nothing rather than a goroutine that outlives it.
		s.mu.Unlock()
		<-s.refusing
		_ = c.Close()
		return
	}
	s.refusals[c] = struct{}{}
	s.refusers.Add(1)
	s.mu.Unlock()
	go func() {
		defer s.refusers.Done() // last: the slot is free by then
		defer func() { <-s.refusing }()
		if _, err := c.Write([]byte(msg)); err == nil {
			drainRefused(c)
		}
		_ = c.Close()
		s.mu.Lock()
		delete(s.refusals, c)
		s.mu.Unlock()
	}()
}

// refusedDrainBytes bounds what a refused connection's drain reads.
const refusedDrainBytes = 64 << 10

// drainRefused ends the server's side of a refused connection after its
// error, then reads and drops what the client sends until it ends its side,
// within the refusal's deadline and refusedDrainBytes, as linger does after
// a bad request. A client sends its first command (go-redis its HELLO) as
// soon as it connects: closed with that command unread, the connection was
// reset, and the client saw "connection reset by peer", at times before it
// had read the error, where Redis's clients read the error and then the end
// of the stream.
func drainRefused(c net.Conn) {
	if cw, ok := c.(interface{ CloseWrite() error }); ok {
		_ = cw.CloseWrite()
	}
	_, _ = io.CopyN(io.Discard, c, refusedDrainBytes)
}

// cutRefusals ends the refusals still being written (their write fails at
// once) and waits for their goroutines; refusals that come later close
// their connection without a message. Shutdown calls it once the
// connections are done, so a refusal's message has that long to go out.
func (s *Server) cutRefusals() {
	s.mu.Lock()
	s.refusalsCut = true
	for c := range s.refusals {
		_ = c.SetDeadline(time.Now())
	}
	s.mu.Unlock()
	s.refusers.Wait()
}

// logRefusal counts a connection refused at max_conns and logs the count at
// most once per refusalLogEvery. The accept loop calls it.
func (s *Server) logRefusal(now time.Time) {
	s.refusedUnlogged++
	if now.Sub(s.refusalLogged) < refusalLogEvery {
		return
	}
	s.log.Warn("refusing connections: max_conns reached", "max_conns", s.cfg.Limits.MaxConns, "refused", s.refusedUnlogged)
	s.refusalLogged, s.refusedUnlogged = now, 0
}

// readFailed answers a malformed or oversized request with an error before the
// connection is closed, and lingers (see linger) so that the client gets it;
// a closed or timed-out connection gets nothing, nor does one whose TLS
// handshake failed (tlsRefused).
func (s *Server) readFailed(ss *session, wr *redcon.Writer, err error) {
	if handshakeFailed(ss.conn, err) {
		s.tlsRefused(ss, err)
		return
	}
	var ne net.Error
	switch {
	case errors.Is(err, io.EOF), errors.Is(err, net.ErrClosed), errors.As(err, &ne):
		return
	case errors.Is(err, errTooLarge):
		s.tooLarge.Add(1)
	default:
		s.protoErrors.Add(1)
	}
	msg := err.Error()
	if !strings.HasPrefix(msg, "ERR ") {
		msg = "ERR " + msg
	}
	wr.WriteError(msg)
	_ = ss.conn.SetWriteDeadline(time.Now().Add(time.Second))
	if wr.Flush() == nil {
		s.linger(ss)
	}
	s.log.Debug("closing connection after a bad request", "remote", ss.remote, "err", err)
}

// drainAtShutdown ends a connection that Shutdown stops between two reads,
// or in a read (for its next command, or for the rest of one it holds the
// start of), its replies
// written: as linger does, it ends the server's side, then reads
// and drops what the client sent since the last read (commands the drain
// does not run), until the client ends its side, for at most lingerTime and
// lingerBytes. Closed with those bytes unread, the connection was reset,
// and the kernel dropped the replies still queued to go out: a client that
// had pipelined a command behind a large reply got part of the reply, then
// "connection reset by peer" (or waited for the rest until its timeout).
// A connection idle at Shutdown has nothing unread and does not come here
// (its read fails at once); a Shutdown whose ctx ends closes this one too.
func (s *Server) drainAtShutdown(ss *session) {
	// Under mu: Shutdown has set every connection's read deadline to now
	// by the time closing is seen there, so it does not cut this one.
	s.mu.Lock()
	_ = ss.conn.SetDeadline(time.Now().Add(lingerTime)) // the write too: a TLS close_notify
	s.mu.Unlock()
	if cw, ok := ss.conn.(interface{ CloseWrite() error }); ok {
		_ = cw.CloseWrite()
	}
	_, _ = io.CopyN(io.Discard, ss.conn, lingerBytes)
}

// postCmd and hostCmd are the first words of the HTTP lines httpLine looks for.
var postCmd, hostCmd = []byte("POST"), []byte("Host:")

// httpLine returns the index of the first command that is a line of an HTTP
// request (POST, or a Host: header), or -1. A web page can make a browser
// send a POST to the RESP port without a preflight, and its body would then
// run as commands through an open tenant; Redis closes such a connection
// without running anything from that command on, and so does the gateway
// (serveConn).
func httpLine(cmds []redcon.Command) int {
	for i, c := range cmds {
		if len(c.Args) > 0 && (bytes.EqualFold(c.Args[0], postCmd) || bytes.EqualFold(c.Args[0], hostCmd)) {
			return i
		}
	}
	return -1
}

// httpRefused counts a connection closed for an HTTP request (in
// protocol_errors) and logs it, at most once every refusalLogEvery.
func (s *Server) httpRefused(ss *session) {
	s.protoErrors.Add(1)
	now := time.Now().UnixNano()
	if last := s.attackLogged.Load(); now-last >= int64(refusalLogEvery) && s.attackLogged.CompareAndSwap(last, now) {
		s.log.Warn("possible security attack: an HTTP request on the RESP port; connection closed, nothing after it ran", "remote", ss.remote)
	}
}

// handshakeFailed reports whether err, from a read on c, is the failure of
// c's TLS handshake (the listener's tls.Conn runs it in the first read): a
// plaintext client, a client that refused the certificate, a handshake cut
// off. A connection that ended before sending anything (io.EOF), closed by
// the server, or timed out is not counted, as before.
func handshakeFailed(c net.Conn, err error) bool {
	tc, ok := c.(*tls.Conn)
	if !ok || tc.ConnectionState().HandshakeComplete {
		return false
	}
	return !errors.Is(err, io.EOF) && !errors.Is(err, net.ErrClosed) && !isTimeout(err)
}

// tlsRefused counts a connection whose TLS handshake failed (in
// tls_handshake_failures, not protocol_errors: it sent no RESP) and logs it,
// at most once every refusalLogEvery. It gets no reply: with no TLS session,
// there is nothing to write it over.
func (s *Server) tlsRefused(ss *session, err error) {
	s.tlsFailures.Add(1)
	now := time.Now().UnixNano()
	if last := s.tlsLogged.Load(); now-last >= int64(refusalLogEvery) && s.tlsLogged.CompareAndSwap(last, now) {
		s.log.Warn("TLS handshake failed; connection closed", "remote", ss.remote, "err", err)
	}
}

// How long, and how many bytes, linger reads after the error that refused
// a request.
const (
	lingerTime  = time.Second
	lingerBytes = 64 << 20
)

// linger ends the server's side of ss's connection after its last reply,
// then reads and drops what the client still sends, until the client ends
// its side, for at most lingerTime and lingerBytes, before the caller
// closes the connection. A client refused for a malformed or oversized
// request is often still sending it, and closing a connection with bytes
// unread makes the kernel reset it: the client then saw "connection reset
// by peer" in place of the end of the stream after the error, or in its
// write, before it read the error at all (go-redis, SET of 1 MiB against a
// 4 KiB limit: 2 times in 20). net/http and nginx linger so too. Shutdown
// cuts it short, as it does reads.
func (s *Server) linger(ss *session) {
	if cw, ok := ss.conn.(interface{ CloseWrite() error }); ok {
		_ = cw.CloseWrite() // the end of the stream after the error
	}
	s.mu.Lock()
	if s.closing {
		s.mu.Unlock()
		return
	}
	_ = ss.conn.SetReadDeadline(time.Now().Add(lingerTime))
	s.mu.Unlock()
	_, _ = io.CopyN(io.Discard, ss.conn, lingerBytes)
}
