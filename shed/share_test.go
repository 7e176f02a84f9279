package shed_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/shed"
)

// TestSchedulerOverShareDeadline: the short standing-queue deadline applies
// only to a tenant over its share, one that had a request shed within
// OverShareWindow.
func TestSchedulerOverShareDeadline(t *testing.T) {
	const (
		long     = 100 * time.Millisecond
		short    = 10 * time.Millisecond
		window   = time.Second
		standFor = 150 * time.Millisecond // the bucket stays non-empty this long
	)
	tests := []struct {
		name     string
		shedAt   time.Duration // when one of the tenant's requests is shed; <0 never
		standing bool
		want     time.Duration
	}{
		{name: "standing, never shed", shedAt: -1, standing: true, want: long},
		{name: "standing, shed just before", shedAt: standFor - time.Millisecond, standing: true, want: short},
		{name: "not standing, shed just before", shedAt: standFor - time.Millisecond, standing: false, want: long},
		{name: "standing, shed longer ago than the window", shedAt: 0, standing: true, want: long},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newSched(t, shed.Config{QueueDeadline: long, StandingDeadline: short,
				OverShareWindow: window, MaxQueue: 1000})
			start := t0.Add(-window) // so that a shed at 0 is older than the window at the end
			if !tt.standing {
				start = t0.Add(-standFor / 2)
			}
			keep, _, err := s.Push(start, "A", 0, 1, req{seq: 0})
			require.NoError(t, err)
			if tt.shedAt >= 0 {
				at := t0.Add(tt.shedAt)
				if tt.shedAt == 0 {
					at = start.Add(time.Millisecond)
				}
				h, _, err := s.Push(at, "A", 0, 1, req{seq: 1})
				require.NoError(t, err)
				require.True(t, s.Remove(at, h, shed.ReasonQueueDeadline))
			}
			now := t0.Add(standFor)
			if !tt.standing {
				require.True(t, s.Remove(now, keep, 0)) // the bucket empties
				now = now.Add(time.Millisecond)
			}
			_, _, err = s.Push(now, "A", 0, 1, req{seq: 2})
			require.NoError(t, err)
			_, dl, err := s.Push(now, "A", 0, 1, req{seq: 3})
			require.NoError(t, err)
			assert.Equal(t, now.Add(tt.want), dl)
		})
	}
}

// TestSchedulerDipSparesUnderShare is the real-mode case: a large tenant well
// under its share over the last second is backlogged next to floods when the
// capacity dips (to 1.5 requests per ms for 200 ms, less than a fourth of it
// each for the three floods and the large tenant, which wants 0.5). It keeps
// the long deadline and is served before the floods, so only the floods shed.
// (Before the over-share rule, the large tenant shared the old list with the
// floods, its queue stood for more than QueueDeadline, its requests got the
// 10 ms deadline and some were shed.)
func TestSchedulerDipSparesUnderShare(t *testing.T) {
	s := newSched(t, shed.Config{QueueDeadline: 50 * time.Millisecond, StandingDeadline: 10 * time.Millisecond,
		MaxQueue: 64})
	shedBy := map[string]int{}
	count := func(r req) { shedBy[r.tenant]++ }
	served := map[string]int{}
	now := t0
	push := func(tenant string) {
		if _, _, err := s.Push(now, tenant, 0, 1, req{tenant: tenant}); errors.Is(err, shed.ErrShed) {
			shedBy[tenant]++
		}
	}
	// 2 s at 10 requests per ms of capacity: each flood offers 4 per ms, the
	// large tenant 1 per 2 ms; 1.5 per ms from 1000 to 1200 ms.
	for ms := range 2000 {
		now = t0.Add(time.Duration(ms) * time.Millisecond)
		for f := range 3 {
			for range 4 {
				push(fmt.Sprint("flood", f))
			}
		}
		if ms%2 == 0 {
			push("large")
		}
		capacity := 10
		if ms >= 1000 && ms < 1200 {
			capacity = 1 + ms%2
		}
		for range capacity {
			v, _, ok := s.Pop(now, math.MaxInt64, count)
			if !ok {
				break
			}
			served[v.tenant]++
		}
	}
	assert.Zero(t, shedBy["large"], "the large tenant is under its share")
	assert.Equal(t, 1000, served["large"])
	for f := range 3 {
		assert.Positive(t, shedBy[fmt.Sprint("flood", f)])
	}
}

// TestSchedulerFloodNeverShedIsOverShare: a flood on the fresh list that is
// never shed (the capacity suffices for it alone) still counts as over its
// share once it is served more than the old list's tenants get each, and then
// shares with them equally.
func TestSchedulerFloodNeverShedIsOverShare(t *testing.T) {
	s := newSched(t, shed.Config{QueueDeadline: time.Hour, StandingDeadline: time.Hour,
		OverShareWindow: 100 * time.Millisecond, MaxQueue: 8})
	now := t0
	// "shed" is over its share from the start: one request shed.
	for range 9 {
		_, _, _ = s.Push(now, "shed", 0, 1, req{tenant: "shed"})
	}
	served := map[string]int{}
	for ms := range 400 {
		now = t0.Add(time.Duration(ms) * time.Millisecond)
		for _, n := range []string{"shed", "fresh"} {
			for range 4 {
				_, _, _ = s.Push(now, n, 0, 1, req{tenant: n})
			}
		}
		for range 4 { // capacity for half the offered load
			v, _, ok := s.Pop(now, math.MaxInt64, nil)
			require.True(t, ok)
			if ms >= 200 {
				served[v.tenant]++
			}
		}
	}
	// Starved in the first window, the old list sets the level at half what
	// "fresh" got; "fresh" then exceeds it and joins the old list.
	assert.InDelta(t, 400, served["fresh"], 40, "about equal shares in the last two windows")
	assert.InDelta(t, 400, served["shed"], 40)
}

// TestShedderUnderShareFirst: with a real Shedder on the synctest clock, a
// tenant that was never shed is admitted before a flooding tenant that queued
// earlier and had a request shed, once the flood's current turn (one quantum)
// is over.
func TestShedderUnderShareFirst(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newShedder(t, shed.Config{Capacity: shed.Fixed(1), MaxQueue: 2,
			QueueDeadline: time.Second, StandingDeadline: 10 * time.Millisecond})
		hold, err := s.Acquire(context.Background(), "holder", 0, 1)
		require.NoError(t, err)
		order := make(chan string, 8)
		acquire := func(tenant string) {
			release, err := s.Acquire(context.Background(), tenant, 0, 1)
			if err != nil {
				order <- tenant + " shed"
				return
			}
			order <- tenant
			release()
		}
		for range 3 { // the third is shed: bucket full
			go acquire("flood")
			synctest.Wait()
		}
		// The flood queued 2 and was over its bucket: it is over its share.
		// "steady" queues behind it, never shed.
		go acquire("steady")
		synctest.Wait()
		hold()
		got := make([]string, 0, 4)
		for range 4 {
			got = append(got, <-order)
		}
		assert.Equal(t, []string{"flood shed", "flood", "steady", "flood"}, got)
	})
}

// TestSchedulerFreshArrivalOrder replays a capacity dip on explicit time: 40
// ms without capacity, during which a large tenant under its share queues 4
// requests and 40 small tenants one each, interleaved. Then the capacity comes
// back at one request per ms. In round robin the large tenant gets one request
// per round of the fresh list, and its second waits 71 ms, behind every small
// tenant; in arrival order its visit serves all four, and no request waits
// longer than the dip (40 ms).
func TestSchedulerFreshArrivalOrder(t *testing.T) {
	for _, tt := range []struct {
		arrival bool
		maxWait time.Duration // of the large tenant
	}{{false, 71 * time.Millisecond}, {true, 40 * time.Millisecond}} {
		s := newSched(t, shed.Config{QueueDeadline: time.Second, FreshArrivalOrder: tt.arrival, MaxQueue: 64})
		enq := map[int]time.Time{}
		seq := 0
		for i := range 40 {
			at := t0.Add(time.Duration(i) * time.Millisecond)
			if i%10 == 0 {
				_, _, err := s.Push(at, "large", 0, 1, req{tenant: "large", seq: seq})
				require.NoError(t, err)
				enq[seq] = at
				seq++
			}
			_, _, err := s.Push(at, fmt.Sprintf("small-%d", i), 0, 1, req{tenant: "small", seq: -1})
			require.NoError(t, err)
		}
		var largest time.Duration
		for i := range 44 {
			now := t0.Add(40*time.Millisecond + time.Duration(i)*time.Millisecond)
			v, _, ok := s.Pop(now, math.MaxInt64, nil)
			require.True(t, ok)
			if v.tenant == "large" {
				largest = max(largest, now.Sub(enq[v.seq]))
			}
		}
		assert.Equal(t, tt.maxWait, largest, "arrival order %v", tt.arrival)
		assert.Zero(t, s.Queued())
	}
}

// TestSchedulerShareStats: Stats counts the tenants that became over their
// share, on a shed and on the level, once per spell.
func TestSchedulerShareStats(t *testing.T) {
	s := newSched(t, shed.Config{MaxQueue: 1, QueueDeadline: time.Second})
	_, _, err := s.Push(t0, "A", 0, 1, req{})
	require.NoError(t, err)
	for range 3 { // the bucket is full: shed three times, marked once
		_, _, err = s.Push(t0, "A", 0, 1, req{})
		require.Error(t, err)
	}
	st := s.Stats()
	assert.Equal(t, int64(1), st.OverShareByShed)
	assert.Zero(t, st.OverShareByLevel)
	assert.Zero(t, st.ShareLevel)
}

// TestSchedulerLevelIsTheMostOverShareGot: the share level is what the
// backlogged tenants over their share get, not the mean over every tenant on
// the old list. Two floods stay backlogged and over their share, 20 light
// tenants are on the old list after a shed each (one request served per
// window), and a large tenant sends a request every 10 ms (100 per window,
// far below the floods' 400 or so) while one request is served per ms. The
// mean over the old list would be about 40 and mark the large tenant over its
// share every window; the level is the floods' share, and it never is.
func TestSchedulerLevelIsTheMostOverShareGot(t *testing.T) {
	s := newSched(t, shed.Config{QueueDeadline: time.Second, StandingDeadline: time.Second,
		OverShareWindow: time.Second, MaxQueue: 1000, MaxQueueCost: 1000})
	mark := func(now time.Time, tenant string) {
		h, _, err := s.Push(now, tenant, 0, 1, req{tenant: tenant})
		require.NoError(t, err)
		require.True(t, s.Remove(now, h, shed.ReasonQueueDeadline))
	}
	queued := map[string]int{}
	for ms := range 3000 {
		now := t0.Add(time.Duration(ms) * time.Millisecond)
		if ms%500 == 0 {
			for _, f := range []string{"flood-1", "flood-2"} {
				mark(now, f)
			}
		}
		for i := range 20 { // marked, then (once off the fresh list) one request
			light := fmt.Sprintf("light-%d", i)
			switch ms % 1000 {
			case 0:
				mark(now, light)
			case 5:
				_, _, err := s.Push(now, light, 0, 1, req{tenant: light})
				require.NoError(t, err)
			}
		}
		for _, f := range []string{"flood-1", "flood-2"} {
			for ; queued[f] < 50; queued[f]++ {
				_, _, err := s.Push(now, f, 0, 1, req{tenant: f})
				require.NoError(t, err)
			}
		}
		if ms%10 == 0 {
			_, _, err := s.Push(now, "large", 0, 1, req{tenant: "large"})
			require.NoError(t, err)
		}
		v, _, ok := s.Pop(now, math.MaxInt64, func(r req) { t.Fatalf("%s expired", r.tenant) })
		require.True(t, ok)
		queued[v.tenant]--
	}
	st := s.Stats()
	assert.Zero(t, st.OverShareByLevel, "the large tenant is never over its share")
	assert.Greater(t, st.ShareLevel, int64(300), "the level is the floods' share")
	large := s.Tenant(nil, "large")
	require.Len(t, large, 2)
	assert.Zero(t, large[0].Shed())
	t.Logf("level %d per window; marked over on a shed %d times", st.ShareLevel, st.OverShareByShed)
}

// TestSchedulerOverLevelNeverShedGetsStandingDeadline: a tenant that was
// never shed but was served more than the share level within a window is
// over its share, so a request joining its standing queue gets
// StandingDeadline (Config.OverShareWindow said such a tenant always gets
// QueueDeadline).
func TestSchedulerOverLevelNeverShedGetsStandingDeadline(t *testing.T) {
	const (
		long  = 50 * time.Millisecond
		short = 10 * time.Millisecond
	)
	s := newSched(t, shed.Config{QueueDeadline: long, StandingDeadline: short,
		OverShareWindow: time.Second, MaxQueue: 4})
	// "flood" is shed once (over its share) and served 3 from the old list
	// in the first window: the level of the next is 3.
	for range 5 {
		_, _, _ = s.Push(t0, "flood", 0, 1, req{tenant: "flood"})
	}
	for range 3 {
		v, _, ok := s.Pop(t0, math.MaxInt64, nil)
		require.True(t, ok)
		require.Equal(t, "flood", v.tenant)
	}
	// "big", never shed, is served 4 > 3 from the fresh list in the second.
	at := t0.Add(time.Second)
	for range 4 {
		_, _, err := s.Push(at, "big", 0, 1, req{tenant: "big"})
		require.NoError(t, err)
	}
	for range 4 {
		v, _, ok := s.Pop(at, math.MaxInt64, nil)
		require.True(t, ok)
		require.Equal(t, "big", v.tenant)
	}
	st := s.Stats()
	require.Equal(t, int64(1), st.OverShareByLevel)
	require.Zero(t, s.Tenant(nil, "big")[0].Shed())
	// Its bucket, non-empty since it joined, is a standing queue after
	// QueueDeadline: the next request gets the short deadline.
	for range 2 {
		_, _, err := s.Push(at, "big", 0, 1, req{tenant: "big"})
		require.NoError(t, err)
	}
	at = at.Add(long + time.Millisecond)
	_, dl, err := s.Push(at, "big", 0, 1, req{tenant: "big"})
	require.NoError(t, err)
	assert.Equal(t, at.Add(short), dl, "never shed, over its share by the level: StandingDeadline")
	assert.Zero(t, s.Tenant(nil, "big")[0].Shed())
}
