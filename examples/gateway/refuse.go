package main

import (
	"net"
	"time"
)

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
		go func() {
			defer func() { <-s.refusing }()
			_ = c.SetDeadline(now.Add(time.Second))
			_, _ = c.Write([]byte(msg))
			_ = c.Close()
		}()
	default:
		_ = c.Close()
	}
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
