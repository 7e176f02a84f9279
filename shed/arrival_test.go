package shed_test

import (
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/shed"
)

// floodRun drives a Scheduler for 3 s of explicit time: one request served
// per ms, two floods offering 3 requests per ms each, and a light tenant one
// per 10 ms. It returns the scheduler, the flood requests shed when they
// expired in the queue, and those of them after the first window (there is
// no share level before it, so nothing is shed on arrival).
func floodRun(t *testing.T, onArrival bool) (s *shed.Scheduler[req], expired, expiredLater int) {
	t.Helper()
	s = newSched(t, shed.Config{QueueDeadline: 100 * time.Millisecond, StandingDeadline: 10 * time.Millisecond,
		OverShareWindow: time.Second, MaxQueue: 1000, MaxQueueCost: 1000, ShedOnArrival: onArrival})
	var now time.Time
	onExpired := func(r req) {
		require.NotEqual(t, "light", r.tenant, "the light tenant is under its share")
		expired++
		if now.Sub(t0) > time.Second {
			expiredLater++
		}
	}
	for ms := range 3000 {
		now = t0.Add(time.Duration(ms) * time.Millisecond)
		for _, f := range []string{"flood-1", "flood-2"} {
			for range 3 {
				_, dl, err := s.Push(now, f, 0, 1, req{tenant: f})
				if err == nil {
					require.False(t, dl.Before(now))
				}
			}
		}
		if ms%10 == 0 {
			_, _, err := s.Push(now, "light", 0, 1, req{tenant: "light"})
			require.NoError(t, err)
		}
		s.Expire(now, onExpired)
		_, _, ok := s.Pop(now, math.MaxInt64, onExpired)
		require.True(t, ok)
	}
	return s, expired, expiredLater
}

// TestSchedulerShedOnArrival: with ShedOnArrival, a flood's excess is shed
// when it arrives instead of waiting for its deadline in the queue, the floods
// are served as much as without it (what is shed early would have expired),
// and a tenant under its share is never shed.
func TestSchedulerShedOnArrival(t *testing.T) {
	late, lateExpired, lateLater := floodRun(t, false)
	early, earlyExpired, earlyLater := floodRun(t, true)
	ls, es := late.Stats(), early.Stats()
	t.Logf("without: admitted %d, shed at deadline %d (expired in the queue %d, %d after the first second), bucket full %d",
		ls.Admitted, ls.ShedQueueDeadline, lateExpired, lateLater, ls.ShedBucketFull)
	t.Logf("with:    admitted %d, shed at deadline %d (on arrival %d, expired in the queue %d, %d after the first second), bucket full %d",
		es.Admitted, es.ShedQueueDeadline, es.ShedOnArrival, earlyExpired, earlyLater, es.ShedBucketFull)
	assert.Zero(t, ls.ShedOnArrival)
	for _, s := range []*shed.Scheduler[req]{late, early} {
		light := s.Tenant(nil, "light")
		require.NotEmpty(t, light)
		assert.Zero(t, light[0].Shed(), "the light tenant is never shed")
		assert.Equal(t, int64(300), light[0].Admitted)
	}
	assert.Greater(t, es.ShedOnArrival, int64(9_000), "from the second window, the excess is shed on arrival")
	assert.Less(t, earlyLater*20, lateLater, "a twentieth as many requests expire in the queue")
	assert.Equal(t, ls.Admitted, es.Admitted, "the floods are served as much")
	for _, f := range []string{"flood-1", "flood-2"} {
		assert.InDelta(t, late.Tenant(nil, f)[0].Admitted, early.Tenant(nil, f)[0].Admitted, 30, f)
	}
	assert.Equal(t, es.ShedOnArrival+int64(earlyExpired), es.ShedQueueDeadline)
	fl := early.Tenant(nil, "flood-1")
	require.NotEmpty(t, fl)
	assert.Equal(t, fl[0].ShedOnArrival+early.Tenant(nil, "flood-2")[0].ShedOnArrival, es.ShedOnArrival)
}

// TestSchedulerShedOnArrivalConditions: a request is shed on arrival only
// when its tenant is over its share, its bucket stands, a share level is
// known, and the cost queued ahead of it would not drain at that level
// before its deadline.
func TestSchedulerShedOnArrivalConditions(t *testing.T) {
	const window = time.Second
	tests := []struct {
		name    string
		over    bool // the tenant had a request shed just before
		stand   bool // its bucket has not been empty for QueueDeadline
		level   bool // a backlogged tenant over its share was served in the previous window
		ahead   int  // requests queued ahead of the new one
		weight  int
		wantErr bool
	}{
		{name: "under its share", over: false, stand: true, level: true, ahead: 500, wantErr: false},
		{name: "no standing queue", over: true, stand: false, level: true, ahead: 500, wantErr: false},
		{name: "no level", over: true, stand: true, level: false, ahead: 500, wantErr: false},
		{name: "drains in time", over: true, stand: true, level: true, ahead: 5, wantErr: false},
		{name: "would miss", over: true, stand: true, level: true, ahead: 500, wantErr: true},
		{name: "would miss at weight 1, drains at weight 100", over: true, stand: true, level: true, ahead: 500, weight: 100, wantErr: false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := shed.Config{QueueDeadline: 100 * time.Millisecond, StandingDeadline: 10 * time.Millisecond,
				OverShareWindow: window, MaxQueue: 10_000, MaxQueueCost: 10_000, ShedOnArrival: true}
			if tt.weight > 0 {
				cfg.Weights = map[string]int{"A": tt.weight}
			}
			s := newSched(t, cfg)
			now := t0
			if tt.level {
				now = levelOf1000(t, s)
			}
			start := now
			for range tt.ahead {
				_, _, err := s.Push(start, "A", 0, 1, req{tenant: "A"})
				require.NoError(t, err)
			}
			now = start.Add(time.Millisecond)
			if tt.stand {
				now = start.Add(150 * time.Millisecond)
			}
			if tt.over {
				h, _, err := s.Push(now, "A", 1, 1, req{tenant: "A", prio: 1})
				require.NoError(t, err)
				require.True(t, s.Remove(now, h, shed.ReasonQueueDeadline))
			}
			if tt.ahead == 0 {
				return
			}
			_, _, err := s.Push(now, "A", 0, 1, req{tenant: "A"})
			if !tt.wantErr {
				require.NoError(t, err)
				return
			}
			var se *shed.ShedError
			require.ErrorAs(t, err, &se)
			assert.Equal(t, shed.ReasonQueueDeadline, se.Reason)
			st := s.Tenant(nil, "A")[0]
			assert.Equal(t, int64(1), st.ShedOnArrival)
			assert.Equal(t, tt.ahead, st.Queued, "the shed request is not queued")
		})
	}
}

// levelOf1000 makes tenant B, over its share and backlogged on the old list,
// be served 1,000 requests of cost 1 in the OverShareWindow from t0 (s's must
// be 1 s), then one more at t0 + 1 s, which opens the next window: the share
// level is then 1,000 per second. It returns t0 + 1 s.
func levelOf1000(t *testing.T, s *shed.Scheduler[req]) time.Time {
	t.Helper()
	h, _, err := s.Push(t0, "B", 0, 1, req{tenant: "B"})
	require.NoError(t, err)
	require.True(t, s.Remove(t0, h, shed.ReasonQueueDeadline))
	for ms := range 1001 { // the last at t0+window
		at := t0.Add(time.Duration(ms) * time.Millisecond)
		_, _, err := s.Push(at, "B", 0, 1, req{tenant: "B"})
		require.NoError(t, err)
		_, _, ok := s.Pop(at, math.MaxInt64, nil)
		require.True(t, ok)
	}
	require.Equal(t, int64(1000), s.Stats().ShareLevel)
	return t0.Add(time.Second)
}
