package main

import (
	"context"
	"io"
	"log/slog"
	"net"
	"os"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// flakyListener fails every other Accept, up to n failures, as accept(2)
// does when the process is out of file descriptors and connections keep
// closing (each freeing one for the next accept).
type flakyListener struct {
	net.Listener
	mu   sync.Mutex
	n    int
	fail bool
}

func (l *flakyListener) Accept() (net.Conn, error) {
	l.mu.Lock()
	l.fail = !l.fail
	failNow := l.fail && l.n > 0
	if failNow {
		l.n--
	}
	l.mu.Unlock()
	if failNow {
		return nil, &net.OpError{Op: "accept", Net: "tcp", Addr: l.Addr(), Err: os.NewSyscallError("accept4", syscall.EMFILE)}
	}
	return l.Listener.Accept()
}

// TestAcceptErrorsLoggedOncePerInterval: out of file descriptors with
// clients coming and going, accept fails, succeeds (a descriptor freed),
// fails again: the backoff went back to zero at each success and every
// failure logged a warning, about one line per connection (up to 200 a
// second), where the gateway's other repeated warnings are logged once every
// refusalLogEvery. The warning is limited too now, with the failures since
// the last line counted in it.
func TestAcceptErrorsLoggedOncePerInterval(t *testing.T) {
	srv := memkvServer(t, Config{})
	var logs syncBuffer
	srv.log = slog.New(slog.NewTextHandler(&logs, nil))
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	const conns = 8
	served := make(chan error, 1)
	go func() { served <- srv.Serve(&flakyListener{Listener: ln, n: conns}) }()
	defer func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		require.NoError(t, srv.Shutdown(ctx))
		require.NoError(t, <-served)
	}()
	for range conns {
		c, err := net.Dial("tcp", ln.Addr().String())
		require.NoError(t, err)
		require.NoError(t, c.SetDeadline(time.Now().Add(5*time.Second)))
		_, err = c.Write([]byte("PING\r\n"))
		require.NoError(t, err)
		buf := make([]byte, 7)
		_, err = io.ReadFull(c, buf)
		require.NoError(t, err)
		require.Equal(t, "+PONG\r\n", string(buf))
		require.NoError(t, c.Close())
	}
	out := logs.String()
	assert.Equal(t, 1, strings.Count(out, "accept failed"), "one line per refusalLogEvery: %s", out)
}
