package shed_test

import (
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/shed"
)

// TestShareLevelWeightedFraction: the share level is the most cost per unit
// of weight a tenant of the old list got, a fraction when that tenant is
// heavily weighted. A weight-10 flood over its share, backlogged and served 9
// in a window, sets the level at 0.9: a weight-1 tenant served 2 the next
// window has had more than the flood per unit of weight and is over its
// share. When the fraction was dropped, the flood's 9 read as 0, the window
// closed as if the old list had been served nothing, and the level became
// half of what the busiest fresh tenant got (3): that tenant then stayed on
// the fresh list for 4 requests while the flood waited.
func TestShareLevelWeightedFraction(t *testing.T) {
	s := newSched(t, shed.Config{Quantum: 1, MaxQueue: 100, OverShareWindow: time.Second,
		QueueDeadline: time.Minute, StandingDeadline: time.Minute, Weights: map[string]int{"H": 10}})
	// H is over its share (one of its requests was shed) and backlogged.
	h, _, err := s.Push(t0, "H", 0, 1, req{tenant: "H"})
	require.NoError(t, err)
	require.True(t, s.Remove(t0, h, shed.ReasonQueueDeadline))
	for i := range 30 {
		_, _, err := s.Push(t0, "H", 0, 1, req{tenant: "H", seq: i})
		require.NoError(t, err)
	}
	for i := range 6 {
		_, _, err := s.Push(t0, "A", 0, 1, req{tenant: "A", seq: i})
		require.NoError(t, err)
	}
	// First window: A (fresh) is served 6, H (old) 9.
	var got []string
	for range 15 {
		v, _, ok := s.Pop(t0, math.MaxInt64, nil)
		require.True(t, ok)
		got = append(got, v.tenant)
	}
	require.Equal(t, []string{"A", "A", "A", "A", "A", "A", "H", "H", "H", "H", "H", "H", "H", "H", "H"}, got)

	// Second window: A comes back with 5 requests, one at a time.
	next := t0.Add(time.Second)
	for i := range 5 {
		_, _, err := s.Push(next, "A", 0, 1, req{tenant: "A", seq: 10 + i})
		require.NoError(t, err)
	}
	got = got[:0]
	for range 6 {
		v, _, ok := s.Pop(next, 1, nil)
		require.True(t, ok)
		got = append(got, v.tenant)
	}
	st := s.Stats()
	assert.Equal(t, int64(1), st.OverShareByLevel, "A, served 1 per unit of weight against H's 0.9, is over its share")
	assert.Equal(t, int64(1), st.ShareLevel, "0.9 per unit of weight, reported rounded down but at least 1")
	// Served 1 and marked over, A joins H on the old list, behind H, which
	// gets its quantum of 10 first.
	assert.Equal(t, []string{"A", "H", "H", "H", "H", "H"}, got)
}

// TestShareLevelWeightedAboveOne: a level of 1.5 per unit of weight (a
// weight-10 flood served 15) lets a weight-10 tenant under its share be
// served 15 in the next window and stay on the fresh list; with the fraction
// dropped (a level of 1) it counted as over its share from its 11th.
func TestShareLevelWeightedAboveOne(t *testing.T) {
	s := newSched(t, shed.Config{Quantum: 1, MaxQueue: 100, OverShareWindow: time.Second,
		QueueDeadline: time.Minute, StandingDeadline: time.Minute, Weights: map[string]int{"H": 10, "B": 10}})
	h, _, err := s.Push(t0, "H", 0, 1, req{tenant: "H"})
	require.NoError(t, err)
	require.True(t, s.Remove(t0, h, shed.ReasonQueueDeadline))
	for i := range 40 {
		_, _, err := s.Push(t0, "H", 0, 1, req{tenant: "H", seq: i})
		require.NoError(t, err)
	}
	for range 15 {
		v, _, ok := s.Pop(t0, math.MaxInt64, nil)
		require.True(t, ok)
		require.Equal(t, "H", v.tenant)
	}
	next := t0.Add(time.Second)
	for i := range 15 {
		_, _, err := s.Push(next, "B", 0, 1, req{tenant: "B", seq: i})
		require.NoError(t, err)
	}
	var got []string
	for range 16 {
		v, _, ok := s.Pop(next, 1, nil)
		require.True(t, ok)
		got = append(got, v.tenant)
	}
	st := s.Stats()
	assert.Equal(t, int64(1), st.ShareLevel, "1.5 per unit of weight, reported rounded down")
	assert.Zero(t, st.OverShareByLevel, "B got H's 1.5 per unit of weight, not more")
	want := make([]string, 16)
	for i := range want {
		want[i] = "B"
	}
	want[15] = "H"
	assert.Equal(t, want, got, "B, under its share, is served before H")
}
