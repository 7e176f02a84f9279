package main

import (
	"context"
	"errors"
	"net"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestDialGate: after a dial times out, the gate fails the dials that start
// within one dial timeout at once with that error, without dialing; a
// refused dial gates nothing, a successful one ends the gate, and the gate
// ends after one dial timeout.
func TestDialGate(t *testing.T) {
	timedOut := &net.OpError{Op: "dial", Net: "tcp", Err: timeoutErr{}}
	refused := &net.OpError{Op: "dial", Net: "tcp", Err: errors.New("connection refused")}
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
	ctx := context.Background()
	dial := func(g *dialGate) error {
		c, err := g.Dial(ctx, "tcp", "127.0.0.1:1")
		if c != nil {
			_ = c.Close()
		}
		return err
	}

	g := newDialGate(inner, time.Hour)
	next = refused
	require.ErrorIs(t, dial(g), refused)
	require.ErrorIs(t, dial(g), refused)
	assert.Equal(t, 2, dials, "a refused dial gates nothing")

	next = timedOut
	require.ErrorIs(t, dial(g), timedOut)
	next = nil
	require.ErrorIs(t, dial(g), timedOut, "within a dial timeout of a timeout")
	assert.Equal(t, 3, dials, "the gated dial did not dial")

	g.record(&dialOutcome{end: time.Now()}) // a dial that was in flight succeeded
	require.NoError(t, dial(g))
	assert.Equal(t, 4, dials)
	g.record(&dialOutcome{end: time.Now().Add(-time.Minute), err: timedOut})
	require.NoError(t, dial(g), "an older timeout does not undo a success")

	g = newDialGate(inner, time.Nanosecond)
	next = timedOut
	require.ErrorIs(t, dial(g), timedOut)
	next = nil
	require.NoError(t, dial(g), "the gate ends after one dial timeout")
	assert.Equal(t, 7, dials)
}

type timeoutErr struct{}

func (timeoutErr) Error() string   { return "i/o timeout" }
func (timeoutErr) Timeout() bool   { return true }
func (timeoutErr) Temporary() bool { return true }
