package main

import (
	"net"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"
)

// pipeProxy forwards each connection it accepts to target and hands every
// chunk it reads to before, on the side it was read from (up: client to
// server), before writing it on: a hook that blocks holds the chunk, and
// what follows it on that side, back. pair is the connection's own state,
// shared by its two sides.
type pipeProxy struct {
	ln     net.Listener
	target string
	before func(up bool, chunk []byte, pair *pipePair)
	mu     sync.Mutex
	conns  []net.Conn
	wg     sync.WaitGroup
}

// pipePair is what a hook may note about one proxied connection.
type pipePair struct {
	feed atomic.Bool // the client subscribed (a feed connection)
}

// startPipeProxy starts a pipeProxy on a free loopback port, closed when
// the test ends. A hook that may still block must be released by a cleanup
// registered after this call (cleanups run last first).
func startPipeProxy(t *testing.T, target string, before func(up bool, chunk []byte, pair *pipePair)) *pipeProxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	p := &pipeProxy{ln: ln, target: target, before: before}
	p.wg.Go(p.accept)
	t.Cleanup(p.close)
	return p
}

func (p *pipeProxy) addr() string { return p.ln.Addr().String() }

func (p *pipeProxy) accept() {
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		s, err := net.Dial("tcp", p.target)
		if err != nil {
			c.Close()
			continue
		}
		p.mu.Lock()
		p.conns = append(p.conns, c, s)
		p.mu.Unlock()
		pair := new(pipePair)
		p.wg.Go(func() { p.copy(s, c, true, pair) })
		p.wg.Go(func() { p.copy(c, s, false, pair) })
	}
}

func (p *pipeProxy) copy(dst, src net.Conn, up bool, pair *pipePair) {
	defer dst.Close()
	buf := make([]byte, 64<<10)
	for {
		n, err := src.Read(buf)
		if n > 0 {
			p.before(up, buf[:n], pair)
			if _, werr := dst.Write(buf[:n]); werr != nil {
				return
			}
		}
		if err != nil {
			return
		}
	}
}

func (p *pipeProxy) close() {
	p.ln.Close()
	p.mu.Lock()
	for _, c := range p.conns {
		c.Close()
	}
	p.mu.Unlock()
	p.wg.Wait()
}
