package main

import (
	"context"
	"crypto/tls"
	"io"
	"log/slog"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestShutdownEndsRefusals: a connection refused at max_conns whose client
// never reads (its message stays in the socket buffer) or never completes
// the TLS handshake (the refusal's write runs it, and waits for the client)
// leaves no refusal goroutine once Shutdown returns. Shutdown did not wait
// for them: the silent TLS client's refusal ran for a second more, its
// connection still open.
func TestShutdownEndsRefusals(t *testing.T) {
	for _, tc := range []struct {
		name string
		tls  bool
	}{
		{"plain, never reads", false},
		{"TLS, never handshakes", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := Config{HTTPAddr: "-", Limits: Limits{MaxConns: 1}}
			var tlsCfg *tls.Config
			if tc.tls {
				certFile, keyFile, pool := selfSigned(t, t.TempDir())
				cfg.TLSCert, cfg.TLSKey = certFile, keyFile
				tlsCfg = &tls.Config{RootCAs: pool, ServerName: "127.0.0.1", MinVersion: tls.VersionTLS12}
			}
			in := startGateway(t, cfg)
			deadline := time.Now().Add(5 * time.Second)

			raw, err := net.Dial("tcp", in.Addr()) // served: takes the one slot
			require.NoError(t, err)
			defer raw.Close()
			first := raw
			if tc.tls {
				first = tls.Client(raw, tlsCfg)
			}
			_ = first.SetDeadline(deadline)
			_, err = first.Write([]byte("PING\r\n"))
			require.NoError(t, err)
			buf := make([]byte, 64)
			n, err := io.ReadAtLeast(first, buf, 1)
			require.NoError(t, err)
			require.Equal(t, "+PONG\r\n", string(buf[:n]))

			silent, err := net.Dial("tcp", in.Addr()) // refused; reads and sends nothing
			require.NoError(t, err)
			defer silent.Close()
			// The refusal takes its slot on the accept loop; real
			// network, so a bounded poll.
			for in.srv.refused.Load() == 0 {
				require.True(t, time.Now().Before(deadline), "the connection over max_conns was not refused")
				time.Sleep(time.Millisecond)
			}

			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			require.NoError(t, in.Shutdown(ctx))
			require.Zero(t, len(in.srv.refusing), "refusal goroutines still running after Shutdown")
			in.srv.mu.Lock()
			defer in.srv.mu.Unlock()
			require.Empty(t, in.srv.refusals, "refused connections still open after Shutdown")
		})
	}
}

// TestRefusalCutBeforeItsDeadline: a Shutdown that cuts the refusals just as
// one starts does not let that one write under its second-long deadline. The
// refusal goroutine set that deadline after the connection was registered, so
// a cut in between (its deadline set to now) was overwritten, and Shutdown
// waited up to a second for a silent TLS client. The connection's deadline
// calls are gated, so the cut lands in that window every run.
func TestRefusalCutBeforeItsDeadline(t *testing.T) {
	s := &Server{log: slog.New(slog.NewTextHandler(io.Discard, nil)),
		refusing: make(chan struct{}, maxRefusing), refusals: map[net.Conn]struct{}{}}
	c := newGatedConn()
	refused := make(chan struct{})
	go func() { s.refuse(c, true); close(refused) }()
	<-c.gated // the refusal is setting its second-long deadline
	cut := make(chan struct{})
	go func() { s.cutRefusals(); close(cut) }()
	select {
	case <-c.cutAt: // the cut found the connection and waits for its refusal
	case <-cut: // the cut found none
	}
	close(c.gate)
	<-refused
	<-cut

	c.mu.Lock()
	defer c.mu.Unlock()
	assert.True(t, c.closed, "the refused connection is not closed")
	if c.wrote {
		assert.False(t, c.writeDeadline.After(c.cut), "the refusal wrote under a deadline %v after the cut", c.writeDeadline.Sub(c.cut))
	}
}

// gatedConn is a connection whose SetDeadline to a future time waits until
// gate is closed (gated is closed when one does), and which records the
// deadline its Write ran under, the last deadline set in the past (the cut,
// also sent on cutAt), and its Close.
type gatedConn struct {
	net.Conn // nil: the methods refuse does not call
	gate     chan struct{}
	gated    chan struct{}
	cutAt    chan time.Time
	once     sync.Once

	mu            sync.Mutex // protects the fields below
	deadline, cut time.Time
	writeDeadline time.Time
	wrote, closed bool
}

func newGatedConn() *gatedConn {
	return &gatedConn{gate: make(chan struct{}), gated: make(chan struct{}), cutAt: make(chan time.Time, 1)}
}

func (c *gatedConn) SetDeadline(t time.Time) error {
	now := time.Now()
	if t.After(now) {
		c.once.Do(func() { close(c.gated) })
		<-c.gate
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.deadline = t
	if !t.After(now) {
		c.cut = t
		select {
		case c.cutAt <- t:
		default:
		}
	}
	return nil
}

func (c *gatedConn) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.wrote, c.writeDeadline = true, c.deadline
	return len(p), nil
}

func (c *gatedConn) Close() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.closed = true
	return nil
}
