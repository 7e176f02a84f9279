//go:build linux

package main

import (
	"net"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestAcceptEMFILEDoesNotSpin: accept failing for want of a descriptor
// (EMFILE) left the connection pending and the level-triggered listener in
// the epoll set, so every wait returned it at once and the loop spun at 100%
// CPU until a descriptor was free. Now the listener leaves the set: a wait
// sees nothing, and once a client closes the pending connection is
// accepted.
func TestAcceptEMFILEDoesNotSpin(t *testing.T) {
	addr := "127.0.0.1:" + strconv.Itoa(freePort(t))
	l, err := newLoop(addr, nil)
	require.NoError(t, err)
	t.Cleanup(func() {
		for fd := range l.clients {
			_ = syscall.Close(fd)
		}
		_ = syscall.Close(l.lfd)
		_ = syscall.Close(l.ep)
	})
	events := make([]syscall.EpollEvent, 16)
	// wait runs passes (each waiting up to 5 s for an event) until cond
	// holds, at most 10.
	wait := func(what string, cond func() bool) {
		t.Helper()
		for i := 0; !cond(); i++ {
			require.Less(t, i, 10, what)
			_, err := l.pass(events, 5000)
			require.NoError(t, err)
		}
	}

	a, err := net.DialTimeout("tcp", addr, time.Second)
	require.NoError(t, err)
	wait("the first client is accepted", func() bool { return len(l.clients) == 1 })
	var first *client
	for _, c := range l.clients {
		first = c
	}

	emfile := 0
	l.accept4 = func(int, int) (int, syscall.Sockaddr, error) {
		emfile++
		return -1, nil, syscall.EMFILE
	}
	b, err := net.DialTimeout("tcp", addr, time.Second)
	require.NoError(t, err)
	defer b.Close()
	wait("accept of the second client is tried", func() bool { return emfile > 0 })
	for range 3 {
		n, err := l.pass(events, 0)
		require.NoError(t, err)
		require.Zero(t, n, "the loop woke for a listener it cannot accept from")
	}
	require.Equal(t, 1, emfile, "accept tried again while no descriptor was freed")

	l.accept4 = syscall.Accept4
	require.NoError(t, a.Close())
	wait("the second client is accepted once the first has closed", func() bool {
		for _, c := range l.clients {
			return c != first && len(l.clients) == 1
		}
		return false
	})
}
