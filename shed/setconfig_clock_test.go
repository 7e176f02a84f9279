package shed_test

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/shed"
)

// slowLimit is a limit of 1 until grow is set; then Limit returns 2, once it
// has spun until the clock passes until: a Capacity slow to answer (or, before
// the sixty-second session, SetConfig's own walk of the tenants, 2 ms at
// 100,000 of them) during which a queued request's deadline can pass.
type slowLimit struct {
	grow  atomic.Bool
	until atomic.Int64 // unix nanoseconds
}

func (c *slowLimit) Limit() int {
	if !c.grow.Load() {
		return 1
	}
	for time.Now().UnixNano() <= c.until.Load() { // bounded: the clock moves
	}
	return 2
}

// TestSetConfigReadsClockAfterWalk: SetConfig decides expiry and admission
// with the time after its walk and the limit's read, not before; with the
// time from before, a request whose deadline passed meanwhile was admitted
// late, against the queue deadline's promise that no request is served after
// it.
func TestSetConfigReadsClockAfterWalk(t *testing.T) {
	c := &slowLimit{}
	cfg := shed.Config{Capacity: c, QueueDeadline: 50 * time.Millisecond, StandingDeadline: 50 * time.Millisecond}
	s, err := shed.New(cfg)
	require.NoError(t, err)
	defer s.Close()
	relA, err := s.Acquire(context.Background(), "A", 0, 1)
	require.NoError(t, err)
	defer relA()

	type result struct {
		release func()
		err     error
		at      time.Time
	}
	got := make(chan result, 1)
	go func() {
		rel, err := s.Acquire(context.Background(), "B", 0, 1)
		got <- result{rel, err, time.Now()}
	}()
	// B queued, or already shed: a stall of the test (a loaded machine,
	// -race) past B's deadline lets the sweep shed B before a poll sees it
	// queued, and the test then checks only that it was shed.
	require.Eventually(t, func() bool { return s.Stats().Queued == 1 || len(got) == 1 }, 10*time.Second,
		100*time.Microsecond, "B neither queued nor shed")

	// B queued before this, so its deadline is at most 50 ms after queuedAt
	// (a clock read before B's Acquire gave no such bound: a stall between
	// the two moved B's deadline past it); the limit answers 60 ms after
	// queuedAt, with room for B. (The sweep armed for B's deadline waits for
	// the lock SetConfig holds.)
	queuedAt := time.Now()
	c.until.Store(queuedAt.Add(60 * time.Millisecond).UnixNano())
	c.grow.Store(true)
	require.NoError(t, s.SetConfig(cfg))

	r := <-got
	if r.err == nil {
		r.release()
	}
	var se *shed.ShedError
	require.True(t, errors.As(r.err, &se), "B admitted %v after it queued, past its 50 ms deadline", r.at.Sub(queuedAt))
	require.Equal(t, shed.ReasonQueueDeadline, se.Reason)
}
