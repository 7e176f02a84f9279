package main

import (
	"context"
	"io"
	"net"
	"os"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// emfileListener fails its first n Accepts as accept(2) does when the
// process is out of file descriptors.
type emfileListener struct {
	net.Listener
	n int
}

func (l *emfileListener) Accept() (net.Conn, error) {
	if l.n > 0 {
		l.n--
		return nil, &net.OpError{Op: "accept", Net: "tcp", Addr: l.Addr(), Err: os.NewSyscallError("accept4", syscall.EMFILE)}
	}
	return l.Listener.Accept()
}

// TestServeSurvivesEMFILE: running out of file descriptors (a burst of
// connections over the process's limit) is passing; the gateway keeps
// accepting once connections close. Serve returned the error, and run shut
// the whole gateway down on it.
func TestServeSurvivesEMFILE(t *testing.T) {
	srv := memkvServer(t, Config{})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	served := make(chan error, 1)
	go func() { served <- srv.Serve(&emfileListener{Listener: ln, n: 3}) }()
	defer func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		require.NoError(t, srv.Shutdown(ctx))
		require.NoError(t, <-served, "Serve returns nil after Shutdown")
	}()

	c, err := net.Dial("tcp", ln.Addr().String())
	require.NoError(t, err)
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(5 * time.Second))
	_, err = c.Write([]byte("PING\r\n"))
	require.NoError(t, err)
	buf := make([]byte, 16)
	n, err := io.ReadAtLeast(c, buf, 1)
	require.NoError(t, err, "the connection is served after the accept errors")
	require.Equal(t, "+PONG\r\n", string(buf[:n]))
}
