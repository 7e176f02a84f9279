package main

import (
	"context"
	"net"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestDialGateCallerDeadlineGatesNothing: a dial cut short by its caller's
// deadline (a command with little of its request_timeout left) says nothing
// of the shard, so it gates nothing: the next dial dials. Gated, one command
// near its deadline failed every dial to a healthy shard for a dial timeout,
// and with them go-redis counted failed dials up to its pool's size, so it
// stopped dialing the shard until its once-a-second probe.
func TestDialGateCallerDeadlineGatesNothing(t *testing.T) {
	timedOut := &net.OpError{Op: "dial", Net: "tcp", Err: timeoutErr{}}
	var next error
	dials := 0
	inner := func(context.Context, string, string) (net.Conn, error) {
		dials++
		if next != nil {
			return nil, next
		}
		c1, c2 := net.Pipe()
		_ = c2.Close()
		return c1, nil
	}
	dial := func(g *dialGate, ctx context.Context) error {
		c, err := g.Dial(ctx, "tcp", "127.0.0.1:1")
		if c != nil {
			_ = c.Close()
		}
		return err
	}
	g := newDialGate(inner, time.Hour)

	next = timedOut
	short, cancel := context.WithDeadline(context.Background(), time.Now().Add(-time.Millisecond))
	defer cancel()
	require.ErrorIs(t, dial(g, short), timedOut)
	next = nil
	require.NoError(t, dial(g, context.Background()), "the caller's deadline, not the shard's silence")
	assert.Equal(t, 2, dials)

	// A dial given the whole dial timeout (go-redis's per-attempt deadline)
	// that times out still gates.
	next = timedOut
	whole, cancel2 := context.WithTimeout(context.Background(), time.Hour)
	defer cancel2()
	require.ErrorIs(t, dial(g, whole), timedOut)
	next = nil
	require.ErrorIs(t, dial(g, context.Background()), timedOut, "within a dial timeout of a timeout")
	assert.Equal(t, 3, dials)
}
