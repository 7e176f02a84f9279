package shed_test

import (
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/shed"
)

// levelOver makes tenant B, over its share and backlogged on the old list, be
// served one request of cost 1 per ms for the OverShareWindow from t0 (s's
// must be window), then one more at t0 + window, which opens the next
// window: the share level is then the ms in window per window (1 per ms). It
// returns t0 + window.
func levelOver(t *testing.T, s *shed.Scheduler[req], window time.Duration) time.Time {
	t.Helper()
	h, _, err := s.Push(t0, "B", 0, 1, req{tenant: "B"})
	require.NoError(t, err)
	require.True(t, s.Remove(t0, h, shed.ReasonQueueDeadline))
	n := int(window / time.Millisecond)
	for ms := range n + 1 { // the last at t0+window
		at := t0.Add(time.Duration(ms) * time.Millisecond)
		_, _, err := s.Push(at, "B", 0, 1, req{tenant: "B"})
		require.NoError(t, err)
		_, _, ok := s.Pop(at, math.MaxInt64, nil)
		require.True(t, ok)
	}
	require.Equal(t, int64(n), s.Stats().ShareLevel)
	return t0.Add(window)
}

// TestSchedulerSetConfigOverShareWindowKeepsTheRate: the share level is the
// rate a backlogged tenant over its share was served in the previous
// OverShareWindow (1 per ms here). A SetConfig that changes the window keeps
// that rate: the level, a cost per window, was read at the new window's scale
// (10 times lower after 100 ms -> 1 s, 10 times higher after 1 s -> 100 ms),
// so a request that would drain in 5 ms was shed on arrival for a 10 ms
// deadline, and one that would take 50 ms was not.
func TestSchedulerSetConfigOverShareWindowKeepsTheRate(t *testing.T) {
	tests := []struct {
		name      string
		from, to  time.Duration
		ahead     int // requests of cost 1 queued ahead: ahead ms at the level
		wantShed  bool
		wantLevel int64
	}{
		{name: "raised, drains in time", from: 100 * time.Millisecond, to: time.Second, ahead: 5, wantLevel: 1000},
		{name: "lowered, would miss", from: time.Second, to: 100 * time.Millisecond, ahead: 50, wantShed: true, wantLevel: 100},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := shed.Config{QueueDeadline: 100 * time.Millisecond, StandingDeadline: 10 * time.Millisecond,
				OverShareWindow: tt.from, MaxQueue: 10_000, MaxQueueCost: 10_000, ShedOnArrival: true}
			s := newSched(t, cfg)
			start := levelOver(t, s, tt.from)
			cfg.OverShareWindow = tt.to
			require.NoError(t, s.SetConfig(cfg))
			assert.Equal(t, tt.wantLevel, s.Stats().ShareLevel, "the same rate per the new window")

			for range tt.ahead {
				_, _, err := s.Push(start, "A", 0, 1, req{tenant: "A"})
				require.NoError(t, err)
			}
			// A is over its share and its bucket stands: the 10 ms deadline
			// applies, and the cost ahead drains in ahead ms at the level.
			now := start.Add(50 * time.Millisecond)
			s.Refuse(now, "A", 1, shed.ReasonQueueDeadline)
			now = now.Add(60 * time.Millisecond)
			_, dl, err := s.Push(now, "A", 0, 1, req{tenant: "A"})
			if !tt.wantShed {
				require.NoError(t, err, "5 ahead drain in 5 ms at the level, within the 10 ms deadline")
				assert.Equal(t, now.Add(10*time.Millisecond), dl)
				return
			}
			var se *shed.ShedError
			require.ErrorAs(t, err, &se, "50 ahead take 50 ms at the level, past the 10 ms deadline")
			assert.Equal(t, shed.ReasonQueueDeadline, se.Reason)
			assert.Equal(t, int64(1), s.Stats().ShedOnArrival)
		})
	}
}

// TestSchedulerSetConfigOverShareWindowRestartsTheWindow: a SetConfig that
// shortens OverShareWindow below the time the current window has run restarts
// it, so the next level is measured over the new length. The window in
// progress used to close at the next serve with the most B got over 600 ms
// taken as a level per 500 ms (600 where B's rate gives 500).
func TestSchedulerSetConfigOverShareWindowRestartsTheWindow(t *testing.T) {
	cfg := shed.Config{QueueDeadline: time.Second, StandingDeadline: time.Second,
		OverShareWindow: time.Second, MaxQueue: 10_000, MaxQueueCost: 10_000}
	s := newSched(t, cfg)
	levelOver(t, s, time.Second)
	push := func(ms int) {
		at := t0.Add(time.Duration(ms) * time.Millisecond)
		if ms%100 == 0 { // B stays over its share, on the old list
			s.Refuse(at, "B", 0, shed.ReasonBucketFull)
		}
		_, _, err := s.Push(at, "B", 0, 1, req{tenant: "B"})
		require.NoError(t, err)
	}
	pop := func(ms int) {
		v, _, ok := s.Pop(t0.Add(time.Duration(ms)*time.Millisecond), math.MaxInt64, nil)
		require.True(t, ok)
		require.Equal(t, "B", v.tenant)
	}
	for ms := 1001; ms < 1600; ms++ { // 600 served in the second window
		push(ms)
		pop(ms)
	}
	push(1600)
	cfg.OverShareWindow = 500 * time.Millisecond
	require.NoError(t, s.SetConfig(cfg))
	require.Equal(t, int64(500), s.Stats().ShareLevel, "B's rate per 500 ms")
	pop(1600)
	for ms := 1601; ms < 2700; ms++ { // B keeps being served 1 per ms
		require.Equal(t, int64(500), s.Stats().ShareLevel, "at %d ms: B's rate per 500 ms", ms)
		push(ms)
		pop(ms)
	}
	require.Equal(t, int64(500), s.Stats().ShareLevel)
}
