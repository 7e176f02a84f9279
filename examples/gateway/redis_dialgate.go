package main

import (
	"context"
	"errors"
	"net"
	"sync/atomic"
	"time"
)

// dialGate is the dialer of a go-redis client (newShardClient): after one of
// its dials times out (the shard's host leaves connection attempts
// unanswered: it is down or cut off), the dials that start within one dial
// timeout of that failure fail at once with its error. A dial that succeeds
// ends this. A dial whose caller's deadline ended it before a dial timeout
// gates nothing: the shard may well answer the next.
//
// go-redis stops dialing a shard only once as many dials as the pool's size
// have failed. Before that, a batch that waited for a pool turn while the
// pool's dials were in flight took the turn of the first one that failed and
// dialed again: its commands failed after two dial timeouts (about 1 s with
// a pool of 2), not within the one the README promises. Failing that dial at
// once also counts as one of go-redis's failed dials, so the pool stops
// dialing sooner, and tries once a second as before.
type dialGate struct {
	dial    func(ctx context.Context, network, addr string) (net.Conn, error)
	timeout time.Duration
	last    atomic.Pointer[dialOutcome] // the latest timeout or success
}

// dialOutcome is a dial's end: err is its timeout, nil if it succeeded.
type dialOutcome struct {
	end time.Time
	err error
}

func newDialGate(dial func(ctx context.Context, network, addr string) (net.Conn, error), timeout time.Duration) *dialGate {
	return &dialGate{dial: dial, timeout: timeout}
}

// Dial is go-redis's Options.Dialer.
func (g *dialGate) Dial(ctx context.Context, network, addr string) (net.Conn, error) {
	if l := g.last.Load(); l != nil && l.err != nil && time.Since(l.end) < g.timeout {
		return nil, l.err
	}
	start := time.Now()
	c, err := g.dial(ctx, network, addr)
	var ne net.Error
	switch {
	case err == nil:
		g.record(&dialOutcome{end: time.Now()})
	case errors.As(err, &ne) && ne.Timeout() && !g.cutShort(ctx, start):
		g.record(&dialOutcome{end: time.Now(), err: err})
	}
	return c, err
}

// cutShort says whether ctx, the dial's, left it well under a dial timeout
// from start: its caller's deadline (a command with little of its
// request_timeout left), not the shard's silence, ended the dial, so its
// timeout gates nothing. go-redis's own per-attempt deadline is one dial
// timeout from just before the dial; a tenth of it is the slack.
func (g *dialGate) cutShort(ctx context.Context, start time.Time) bool {
	dl, ok := ctx.Deadline()
	return ok && dl.Sub(start) < g.timeout-g.timeout/10
}

// record keeps o unless a dial that ended later was recorded meanwhile: a
// success is not undone by an older timeout, nor the reverse.
func (g *dialGate) record(o *dialOutcome) {
	for {
		cur := g.last.Load()
		if cur != nil && cur.end.After(o.end) {
			return
		}
		if g.last.CompareAndSwap(cur, o) {
			return
		}
	}
}
