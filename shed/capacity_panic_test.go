package shed_test

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/shed"
)

// boomCapacity is a limit of 1 whose Limit panics while boom is set.
type boomCapacity struct{ boom atomic.Bool }

func (c *boomCapacity) Limit() int {
	if c.boom.Load() {
		panic("capacity boom")
	}
	return 1
}

// recovered runs f and returns what it panicked with.
func recovered(f func()) (v any) {
	defer func() { v = recover() }()
	f()
	return nil
}

// within runs f and fails the test if it does not return in 5 s: a Shedder
// left locked would hang it for good.
func within(t *testing.T, what string, f func()) {
	t.Helper()
	done := make(chan struct{})
	go func() {
		defer close(done)
		f()
	}()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatalf("%s hangs after a panic in Capacity.Limit: the Shedder stayed locked", what)
	}
}

// TestCapacityPanicUnlocks pins Capacity's doc: a Limit that panics leaves the
// Shedder usable once the caller's caller recovers the panic (net/http
// recovers a handler's), at each place that reads the limit, and leaves no
// request queued that nobody waits for.
func TestCapacityPanicUnlocks(t *testing.T) {
	ctx := context.Background()
	cases := map[string]struct {
		queued   bool // a request of tenant B waits while the op runs
		releases bool // the op releases A's unit
		shedB    bool // the op cuts B's deadline: the next dispatch sheds it
		op       func(s *shed.Shedder, rel func())
	}{
		"Acquire":        {op: func(s *shed.Shedder, _ func()) { _, _ = s.Acquire(ctx, "A", 0, 1) }},
		"TryAcquire":     {op: func(s *shed.Shedder, _ func()) { _, _ = s.TryAcquire("A", 0, 1) }},
		"Stats":          {op: func(s *shed.Shedder, _ func()) { _ = s.Stats() }},
		"Acquire queued": {queued: true, op: func(s *shed.Shedder, _ func()) { _, _ = s.Acquire(ctx, "A", 0, 1) }},
		"Kick":           {queued: true, op: func(s *shed.Shedder, _ func()) { s.Kick() }},
		"SetConfig":      {queued: true, op: func(s *shed.Shedder, _ func()) { _ = s.SetConfig(s.Config()) }},
		"SetConfig cut": {queued: true, shedB: true, op: func(s *shed.Shedder, _ func()) {
			_ = s.SetConfig(shed.Config{Capacity: s.Config().Capacity, QueueDeadline: 1, StandingDeadline: 1})
		}},
		"release": {queued: true, releases: true, op: func(_ *shed.Shedder, rel func()) { rel() }},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			c := &boomCapacity{}
			s := newShedder(t, shed.Config{Capacity: c, QueueDeadline: time.Hour, StandingDeadline: time.Hour})
			rel, err := s.TryAcquire("A", 0, 1)
			require.NoError(t, err)
			waited := make(chan error, 1)
			if tc.queued {
				go func() {
					r, err := s.Acquire(ctx, "B", 0, 1)
					if err == nil {
						r()
					}
					waited <- err
				}()
				require.Eventually(t, func() bool { return s.Stats().Queued == 1 }, 10*time.Second, time.Millisecond)
			}
			c.boom.Store(true)
			assert.Equal(t, "capacity boom", recovered(func() { tc.op(s, rel) }))
			c.boom.Store(false)
			var st shed.Stats
			within(t, "Stats", func() { st = s.Stats() })
			assert.Equal(t, map[bool]int{true: 1}[tc.queued], st.Queued, "the panicking call left nothing queued (nor shed B)")
			if tc.releases {
				within(t, "Kick", s.Kick) // the panic cut the dispatch after the release
			} else {
				within(t, "release", rel)
			}
			if tc.queued {
				within(t, "the queued Acquire", func() { err = <-waited })
				if tc.shedB {
					require.ErrorIs(t, err, shed.ErrShed)
				} else {
					require.NoError(t, err)
				}
			}
			within(t, "Stats", func() { st = s.Stats() })
			assert.Zero(t, st.InFlight, "no capacity leaked")
			assert.Zero(t, st.Queued)
		})
	}
}
