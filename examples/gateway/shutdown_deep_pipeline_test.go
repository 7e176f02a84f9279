package main

import (
	"bufio"
	"context"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// closeSignalListener closes closed when it is closed.
type closeSignalListener struct {
	net.Listener
	once   sync.Once
	closed chan struct{}
}

func (l *closeSignalListener) Close() error {
	l.once.Do(func() { close(l.closed) })
	return l.Listener.Close()
}

// TestShutdownServesWholeRead: a Shutdown that comes while a connection runs
// the commands of a read still runs, and answers, every command that read
// brought, as Shutdown says: a read of more than the commands one parse
// returns (readerMaxScratch) was cut after them, its later commands left
// unanswered and unapplied, as if they had never been sent, although the
// client's earlier ones were answered.
func TestShutdownServesWholeRead(t *testing.T) {
	echo := commands["ECHO"]
	echoFn := echo.fn
	t.Cleanup(func() { echo.fn = echoFn }) // after the server's shutdown
	srv := memkvServer(t, Config{})
	tcp, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	ln := &closeSignalListener{Listener: tcp, closed: make(chan struct{})}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	shut := make(chan error, 1)
	var once sync.Once
	// The read's first command starts the Shutdown and waits until it has
	// begun (it closes the listener once it is closing).
	echo.fn = func(c context.Context, s *session, a [][]byte) any {
		once.Do(func() {
			go func() { shut <- srv.Shutdown(ctx) }()
			<-ln.closed
		})
		return echoFn(c, s, a)
	}

	conn, err := net.Dial("tcp", tcp.Addr().String())
	require.NoError(t, err)
	defer conn.Close()
	require.NoError(t, conn.SetDeadline(time.Now().Add(10*time.Second)))
	// One read of more commands than one parse returns: short inline
	// commands, so that they fit in the reader's first buffer.
	n := readerMaxScratch + 100
	var b strings.Builder
	b.WriteString("ECHO x\n")
	for range n {
		b.WriteString("X\n")
	}
	b.WriteString("INCR n\n")
	require.Less(t, b.Len(), readerMinBuf, "one read")
	_, err = conn.Write([]byte(b.String()))
	require.NoError(t, err)

	rd := bufio.NewReader(conn)
	var replies []string
	for len(replies) < n+2 {
		line, err := rd.ReadString('\n')
		if err != nil {
			break
		}
		if strings.HasPrefix(line, "$") { // ECHO's bulk string
			line, err = rd.ReadString('\n')
			if err != nil {
				break
			}
		}
		replies = append(replies, strings.TrimSpace(line))
	}
	require.NoError(t, <-shut)
	require.NoError(t, <-served)
	require.Equal(t, n+2, len(replies), "every command of the read answered")
	assert.Equal(t, "x", replies[0])
	assert.True(t, strings.HasPrefix(replies[n], "-ERR unknown command"), replies[n])
	assert.Equal(t, ":1", replies[n+1], "the last command ran")
	_, err = rd.ReadString('\n')
	assert.Error(t, err, "then the connection is closed")
}
