package shed_test

import (
	"errors"
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/shed"
)

var t0 = time.Unix(1_700_000_000, 0)

type req struct {
	tenant string
	prio   int
	cost   int64
	seq    int
}

func newSched(t *testing.T, cfg shed.Config) *shed.Scheduler[req] {
	t.Helper()
	s, err := shed.NewScheduler[req](cfg)
	require.NoError(t, err)
	return s
}

// drain pops everything with unlimited capacity at now and returns the requests.
func drain(s *shed.Scheduler[req], now time.Time, n int) []req {
	var out []req
	for range n {
		v, _, ok := s.Pop(now, math.MaxInt64, nil)
		if !ok {
			break
		}
		out = append(out, v)
	}
	return out
}

func TestSchedulerCostFairness(t *testing.T) {
	tests := []struct {
		name     string
		weights  map[string]int
		costA    int64
		costB    int64
		wantA    float64 // A's share of the cost served
		quantum  int64
		tolerant float64
	}{
		{name: "equal cost", costA: 1, costB: 1, wantA: 0.5, quantum: 1, tolerant: 0.01},
		{name: "A costs 4x", costA: 4, costB: 1, wantA: 0.5, quantum: 1, tolerant: 0.01},
		{name: "A costs 4x, big quantum", costA: 4, costB: 1, wantA: 0.5, quantum: 16, tolerant: 0.02},
		{name: "A weight 3", weights: map[string]int{"A": 3}, costA: 1, costB: 1, wantA: 0.75, quantum: 1, tolerant: 0.01},
		{name: "A weight 3 costs 3x", weights: map[string]int{"A": 3}, costA: 3, costB: 1, wantA: 0.75, quantum: 1, tolerant: 0.01},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newSched(t, shed.Config{Quantum: tt.quantum, Weights: tt.weights, MaxQueue: 1000, MaxQueueCost: 1 << 20, QueueDeadline: time.Hour})
			for i := range 1000 {
				_, _, err := s.Push(t0, "A", 0, tt.costA, req{tenant: "A", cost: tt.costA, seq: i})
				require.NoError(t, err)
				_, _, err = s.Push(t0, "B", 0, tt.costB, req{tenant: "B", cost: tt.costB, seq: i})
				require.NoError(t, err)
			}
			// Serve while both stay backlogged.
			var costA, costB int64
			for costA+costB < 800 {
				v, _, ok := s.Pop(t0, math.MaxInt64, nil)
				require.True(t, ok)
				if v.tenant == "A" {
					costA += v.cost
				} else {
					costB += v.cost
				}
			}
			share := float64(costA) / float64(costA+costB)
			assert.InDelta(t, tt.wantA, share, tt.tolerant, "A got %d, B got %d", costA, costB)
		})
	}
}

func TestSchedulerPriorityWithinTenantShare(t *testing.T) {
	s := newSched(t, shed.Config{Priorities: 2, MaxQueue: 100, QueueDeadline: time.Hour})
	for i := range 10 {
		_, _, err := s.Push(t0, "A", 0, 1, req{tenant: "A", prio: 0, seq: i})
		require.NoError(t, err)
		_, _, err = s.Push(t0, "A", 1, 1, req{tenant: "A", prio: 1, seq: i})
		require.NoError(t, err)
		_, _, err = s.Push(t0, "B", 0, 1, req{tenant: "B", prio: 0, seq: i})
		require.NoError(t, err)
	}
	got := drain(s, t0, 20)
	var a, b int
	for i, r := range got {
		if r.tenant == "B" {
			b++
			continue
		}
		a++
		// A's first 10 turns serve its high priority, in order.
		if a <= 10 {
			assert.Equal(t, 1, r.prio, "A's turn %d (pop %d)", a, i)
		}
	}
	assert.Equal(t, 10, a, "A keeps its share, no more")
	assert.Equal(t, 10, b, "B is not delayed by A's high priority")
}

func TestSchedulerBucketBounds(t *testing.T) {
	tests := []struct {
		name      string
		cfg       shed.Config
		costs     []int64
		wantShed  []bool
		wantQueue int
	}{
		{name: "count bound", cfg: shed.Config{MaxQueue: 2}, costs: []int64{1, 1, 1}, wantShed: []bool{false, false, true}, wantQueue: 2},
		{name: "cost bound", cfg: shed.Config{MaxQueue: 10, MaxQueueCost: 5}, costs: []int64{3, 2, 1}, wantShed: []bool{false, false, true}, wantQueue: 2},
		{name: "oversize alone", cfg: shed.Config{MaxQueueCost: 5}, costs: []int64{9, 1}, wantShed: []bool{false, true}, wantQueue: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newSched(t, tt.cfg)
			for i, c := range tt.costs {
				_, _, err := s.Push(t0, "A", 0, c, req{})
				if !tt.wantShed[i] {
					require.NoError(t, err, "push %d", i)
					continue
				}
				require.ErrorIs(t, err, shed.ErrShed)
				var se *shed.ShedError
				require.True(t, errors.As(err, &se))
				assert.Equal(t, shed.ReasonBucketFull, se.Reason)
			}
			st := s.Stats()
			assert.Equal(t, tt.wantQueue, st.Queued)
			b := s.Tenant(nil, "A")
			require.Len(t, b, 2)
			assert.Equal(t, int64(1), b[0].ShedBucketFull)
			// Another tenant's bucket is unaffected.
			_, _, err := s.Push(t0, "B", 0, 1, req{})
			require.NoError(t, err)
		})
	}
}

func TestSchedulerDeadlines(t *testing.T) {
	cfg := shed.Config{QueueDeadline: 100 * time.Millisecond, StandingDeadline: 10 * time.Millisecond, MaxQueue: 1000}
	s := newSched(t, cfg)
	// A fresh bucket gets the long deadline.
	_, dl, err := s.Push(t0, "A", 0, 1, req{seq: 1})
	require.NoError(t, err)
	assert.Equal(t, t0.Add(100*time.Millisecond), dl)
	// Keep the bucket non-empty for more than QueueDeadline: a standing queue.
	now := t0
	for i := range 12 {
		now = now.Add(10 * time.Millisecond)
		_, _, err = s.Push(now, "A", 0, 1, req{seq: 2 + i})
		require.NoError(t, err)
		v, _, ok := s.Pop(now, math.MaxInt64, nil)
		require.True(t, ok)
		require.Equal(t, 1+i, v.seq)
	}
	now = now.Add(time.Millisecond)
	h, dl, err := s.Push(now, "A", 0, 1, req{seq: 99})
	require.NoError(t, err)
	assert.Equal(t, now.Add(100*time.Millisecond), dl, "standing queue, never shed (under its share): long deadline")
	// The caller's timer sheds 99: A is over its share, and its standing queue
	// now gets the short deadline.
	require.True(t, s.Remove(now, h, shed.ReasonQueueDeadline))
	_, dl, err = s.Push(now, "A", 0, 1, req{seq: 100})
	require.NoError(t, err)
	assert.Equal(t, t0.Add(220*time.Millisecond), dl,
		"standing queue, over its share: short deadline, but not before 13's ahead of it (120ms + 100ms)")
	// Another tenant joining now still gets the long deadline.
	_, dl, err = s.Push(now, "B", 0, 1, req{seq: 101})
	require.NoError(t, err)
	assert.Equal(t, now.Add(100*time.Millisecond), dl)

	// Just before B's deadline, both of A's requests (13, queued at 120ms with
	// the long deadline, and 100) are expired: the Pop that meets them sheds
	// them and serves B.
	var expired []int
	record := func(r req) { expired = append(expired, r.seq) }
	later := now.Add(99*time.Millisecond + 500*time.Microsecond)
	v, _, ok := s.Pop(later, math.MaxInt64, record)
	require.True(t, ok)
	assert.Equal(t, 101, v.seq)
	_, _, ok = s.Pop(later, math.MaxInt64, record)
	assert.False(t, ok)
	assert.Equal(t, []int{13, 100}, expired)
	assert.Equal(t, int64(3), s.Stats().ShedQueueDeadline)
}

func TestSchedulerExpireSweep(t *testing.T) {
	s := newSched(t, shed.Config{QueueDeadline: 10 * time.Millisecond, StandingDeadline: 10 * time.Millisecond})
	for i := range 5 {
		_, _, err := s.Push(t0, fmt.Sprint("T", i), 0, 1, req{seq: i})
		require.NoError(t, err)
	}
	n := 0
	s.Expire(t0.Add(5*time.Millisecond), func(req) { n++ })
	assert.Equal(t, 0, n)
	s.Expire(t0.Add(11*time.Millisecond), func(req) { n++ })
	assert.Equal(t, 5, n)
	st := s.Stats()
	assert.Equal(t, 0, st.Queued)
	assert.Equal(t, 0, st.Active)
}

func TestSchedulerRemove(t *testing.T) {
	s := newSched(t, shed.Config{})
	h1, _, err := s.Push(t0, "A", 0, 2, req{seq: 1})
	require.NoError(t, err)
	h2, _, err := s.Push(t0, "A", 0, 3, req{seq: 2})
	require.NoError(t, err)
	assert.True(t, s.Remove(t0, h1, 0))
	assert.False(t, s.Remove(t0, h1, 0), "second remove is a no-op")
	assert.True(t, s.Remove(t0, h2, shed.ReasonQueueDeadline))
	var zero shed.Handle[req]
	assert.False(t, s.Remove(t0, zero, 0))
	st := s.Stats()
	assert.Equal(t, int64(1), st.Canceled)
	assert.Equal(t, int64(1), st.ShedQueueDeadline)
	assert.Equal(t, 0, st.Queued)
	assert.Equal(t, int64(0), st.QueuedCost)
	// A recycled node does not answer to the stale handle.
	_, _, err = s.Push(t0, "A", 0, 1, req{seq: 3})
	require.NoError(t, err)
	assert.False(t, s.Remove(t0, h2, 0))
	assert.Equal(t, 1, s.Stats().Queued)
}

func TestSchedulerCapacityGate(t *testing.T) {
	s := newSched(t, shed.Config{Quantum: 5})
	_, _, err := s.Push(t0, "A", 0, 5, req{seq: 1})
	require.NoError(t, err)
	_, _, err = s.Push(t0, "B", 0, 1, req{seq: 2})
	require.NoError(t, err)
	// A is first in the ring, has the credit, but its request does not fit:
	// nothing jumps it.
	for range 10 {
		_, _, ok := s.Pop(t0, 4, nil)
		require.False(t, ok)
	}
	v, _, ok := s.Pop(t0, 5, nil)
	require.True(t, ok)
	assert.Equal(t, 1, v.seq)
}

func TestSchedulerReclaim(t *testing.T) {
	s := newSched(t, shed.Config{MaxTenants: 100, IdleTimeout: time.Second})
	for i := range 1000 {
		s.Admit(t0, fmt.Sprint("t", i), 0, 1)
	}
	st := s.Stats()
	assert.LessOrEqual(t, st.Tenants, 100)
	assert.Equal(t, int64(1000), st.Admitted, "totals keep reclaimed tenants' counts")
	assert.Equal(t, int64(900), st.Reclaimed)
	// A tenant with queued requests is never reclaimed.
	_, _, err := s.Push(t0, "busy", 0, 1, req{})
	require.NoError(t, err)
	later := t0.Add(time.Minute)
	for i := range 300 {
		s.Admit(later, fmt.Sprint("u", i), 0, 1)
	}
	assert.Len(t, s.Tenant(nil, "busy"), 2)
	// Idle tenants go after IdleTimeout: a hand visits one tenant every 16 calls.
	for i := range 16 * 120 {
		s.Admit(later.Add(time.Hour), fmt.Sprint("v", i%3), 0, 1)
	}
	assert.LessOrEqual(t, s.Stats().Tenants, 4)
	assert.Len(t, s.Tenant(nil, "busy"), 2)
}

func TestConfigValidate(t *testing.T) {
	tests := []struct {
		give    shed.Config
		wantErr string
	}{
		{give: shed.Config{}},
		{give: shed.Config{Priorities: -1}, wantErr: "shed: Priorities"},
		{give: shed.Config{Quantum: -1}, wantErr: "shed: Quantum"},
		{give: shed.Config{MaxQueue: -1}, wantErr: "shed: MaxQueue"},
		{give: shed.Config{MaxQueueCost: -1}, wantErr: "shed: MaxQueueCost"},
		{give: shed.Config{QueueDeadline: -1}, wantErr: "shed: QueueDeadline -1ns is negative"},
		{give: shed.Config{QueueDeadline: time.Millisecond, StandingDeadline: time.Second}, wantErr: "shed: StandingDeadline"},
		{give: shed.Config{MaxTenants: -1}, wantErr: "shed: MaxTenants"},
		{give: shed.Config{IdleTimeout: -1}, wantErr: "shed: IdleTimeout"},
		{give: shed.Config{Weights: map[string]int{"x": 0}}, wantErr: "shed: weight 0"},
	}
	for _, tt := range tests {
		_, err := shed.NewScheduler[int](tt.give)
		if tt.wantErr == "" {
			assert.NoError(t, err)
			continue
		}
		assert.ErrorContains(t, err, tt.wantErr)
	}
}

func TestReasonsAndErrors(t *testing.T) {
	for _, r := range []shed.Reason{shed.ReasonBucketFull, shed.ReasonQueueDeadline, shed.ReasonClosed, shed.ReasonNoCapacity} {
		err := shed.ErrorFor(r)
		require.ErrorIs(t, err, shed.ErrShed)
		var se *shed.ShedError
		require.ErrorAs(t, err, &se)
		assert.Equal(t, r, se.Reason)
		assert.Contains(t, err.Error(), r.String())
	}
	assert.Nil(t, shed.ErrorFor(0))
	assert.Equal(t, "invalid reason", shed.Reason(0).String())
}

func TestSchedulerInvalidReasonPanics(t *testing.T) {
	s := newSched(t, shed.Config{})
	h, _, err := s.Push(t0, "A", 0, 1, req{})
	require.NoError(t, err)
	assert.PanicsWithValue(t, "shed: invalid reason invalid reason", func() { s.Remove(t0, h, 99) })
	assert.Panics(t, func() { s.Refuse(t0, "A", 0, 99) })
	s.Refuse(t0, "A", 1, 0)
	s.Refuse(t0, "A", 1, shed.ReasonNoCapacity)
	b := s.Tenant(nil, "A")
	assert.Equal(t, int64(1), b[1].Canceled)
	assert.Equal(t, int64(1), b[1].ShedNoCapacity)
}

func TestSchedulerSetConfigWeights(t *testing.T) {
	s := newSched(t, shed.Config{MaxQueue: 1000, MaxQueueCost: 1 << 20, QueueDeadline: time.Hour})
	for i := range 600 {
		_, _, err := s.Push(t0, "A", 0, 1, req{tenant: "A", seq: i})
		require.NoError(t, err)
		_, _, err = s.Push(t0, "B", 0, 1, req{tenant: "B", seq: i})
		require.NoError(t, err)
	}
	require.Error(t, s.SetConfig(shed.Config{Weights: map[string]int{"A": -1}}))
	require.NoError(t, s.SetConfig(shed.Config{MaxQueue: 1000, MaxQueueCost: 1 << 20, QueueDeadline: time.Hour, Weights: map[string]int{"B": 4}}))
	served := map[string]int{}
	for _, r := range drain(s, t0, 500) {
		served[r.tenant]++
	}
	assert.InDelta(t, 100, served["A"], 1)
	assert.InDelta(t, 400, served["B"], 1, "the new weight applies to a tenant already kept")
}

// TestSchedulerSparseTenantFirst: a tenant that was not queued joins the fresh
// list, served before the tenants over their share (shed recently), and an
// emptied tenant leaves its list, so its next request waits for its turn behind
// the other fresh tenants.
func TestSchedulerSparseTenantFirst(t *testing.T) {
	s := newSched(t, shed.Config{MaxQueue: 50, QueueDeadline: time.Hour})
	for i := range 51 { // the 51st of each is shed: bucket full, over its share
		for _, n := range []string{"noisy1", "noisy2", "noisy3"} {
			_, _, _ = s.Push(t0, n, 0, 1, req{tenant: n, seq: i})
		}
	}
	drain(s, t0, 6) // the noisy tenants are now backlogged in the old list
	_, _, err := s.Push(t0, "sparse", 0, 1, req{tenant: "sparse"})
	require.NoError(t, err)
	_, _, err = s.Push(t0, "other", 0, 1, req{tenant: "other"})
	require.NoError(t, err)
	v, _, ok := s.Pop(t0, math.MaxInt64, nil)
	require.True(t, ok)
	assert.Equal(t, "sparse", v.tenant, "served before three backlogged tenants")
	// Emptied, it stays in its place until its turn: a second request waits
	// for "other", still ahead of the noisy tenants.
	_, _, err = s.Push(t0, "sparse", 0, 1, req{tenant: "sparse"})
	require.NoError(t, err)
	got := drain(s, t0, 2)
	assert.Equal(t, []string{"other", "sparse"}, []string{got[0].tenant, got[1].tenant})
	// Once the backlog is drained, the lists empty and the Active gauge is zero.
	drain(s, t0, 1000)
	_, _, ok = s.Pop(t0, math.MaxInt64, nil)
	assert.False(t, ok)
	assert.Zero(t, s.Stats().Active)
}
