package shed_test

import (
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/shed"
)

// TestSchedulerShedMarksOverShare checks that a request shed with
// ReasonBucketFull or ReasonQueueDeadline marks its tenant over its share
// whether it left the queue (Remove) or never joined it (Refuse), as the
// package doc says ("over its share for OverShareWindow after one of its
// requests is shed"), and that other reasons mark nothing either way.
func TestSchedulerShedMarksOverShare(t *testing.T) {
	remove := func(t *testing.T, s *shed.Scheduler[req], r shed.Reason) {
		h, _, err := s.Push(t0, "A", 0, 1, req{tenant: "A"})
		require.NoError(t, err)
		require.True(t, s.Remove(t0, h, r))
	}
	refuse := func(t *testing.T, s *shed.Scheduler[req], r shed.Reason) {
		s.Refuse(t0, "A", 0, r)
	}
	tests := []struct {
		name     string
		give     func(*testing.T, *shed.Scheduler[req], shed.Reason)
		reason   shed.Reason
		wantOver bool
	}{
		{"remove bucket full", remove, shed.ReasonBucketFull, true},
		{"remove queue deadline", remove, shed.ReasonQueueDeadline, true},
		{"remove closed", remove, shed.ReasonClosed, false},
		{"remove no capacity", remove, shed.ReasonNoCapacity, false},
		{"remove canceled", remove, 0, false},
		{"refuse bucket full", refuse, shed.ReasonBucketFull, true},
		{"refuse queue deadline", refuse, shed.ReasonQueueDeadline, true},
		{"refuse closed", refuse, shed.ReasonClosed, false},
		{"refuse no capacity", refuse, shed.ReasonNoCapacity, false},
		{"refuse canceled", refuse, 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newSched(t, shed.Config{OverShareWindow: time.Second})
			tt.give(t, s, tt.reason)
			_, _, ok := s.Pop(t0, math.MaxInt64, nil) // nothing queued: unlists A
			require.False(t, ok)

			wantMarks := map[bool]int64{true: 1}[tt.wantOver]
			assert.Equal(t, wantMarks, s.Stats().OverShareByShed)

			// A tenant over its share joins the old list, behind B on the
			// fresh one, although A arrived first.
			now := t0.Add(time.Millisecond)
			_, _, err := s.Push(now, "A", 0, 1, req{tenant: "A"})
			require.NoError(t, err)
			_, _, err = s.Push(now, "B", 0, 1, req{tenant: "B"})
			require.NoError(t, err)
			first := map[bool]string{true: "B", false: "A"}[tt.wantOver]
			assert.Equal(t, first, drain(s, now, 2)[0].tenant)
		})
	}
}
