package main

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

// TestQuotaBucket: the table of a tenant's quota over explicit time. The
// tokens read (the gateway_quota_tokens gauge) are refilled up to the reading,
// as admission sees them; before, the gauge showed what the last charge left,
// so a tenant that stopped read as empty for good. A rate change refills the
// time before it at the old rate. A quota switched on from unlimited starts
// full at its burst: it kept the debt it had when switched off, and the
// tenant, which made no limited call since, was throttled at once.
func TestQuotaBucket(t *testing.T) {
	t0 := time.Unix(1000, 0)
	at := func(ms int) time.Time { return t0.Add(time.Duration(ms) * time.Millisecond) }
	type step struct {
		ms     int
		do     string // "charge", "rate", "burst", "read"
		n      float64
		tokens float64 // after the step, read at ms
		allow  bool
	}
	tests := []struct {
		name        string
		rate, burst float64
		steps       []step
	}{
		{"refilled when read", 10, 10, []step{
			{0, "charge", 10, 0, false},
			{500, "read", 0, 5, true},
			{1000, "read", 0, 10, true},
			{5000, "read", 0, 10, true}, // capped at the burst
		}},
		{"debt is paid back", 10, 10, []step{
			{0, "charge", 15, -5, false},
			{400, "read", 0, -1, false},
			{600, "read", 0, 1, true},
		}},
		{"rate change refills the time before at the old rate", 10, 100, []step{
			{0, "charge", 100, 0, false},
			{1000, "rate", 100, 10, true}, // 1 s at 10/s
			{1500, "read", 0, 60, true},   // then 0.5 s at 100/s
		}},
		{"switched on from unlimited: starts full", 0, 10, []step{
			{0, "charge", 50, 10, true}, // unlimited: nothing charged
			{0, "rate", 1, 10, true},
			{0, "charge", 10, 0, false},
			{2000, "rate", 0, 10, true},  // unlimited: full
			{20000, "rate", 1, 10, true}, // switched on: full, as configured
			{21000, "charge", 4, 6, true},
			{22000, "read", 0, 7, true},
		}},
		{"switched off in debt, then on: the debt is not kept", 10, 10, []step{
			{0, "charge", 30, -20, false}, // a flush took it into debt
			{0, "rate", 0, 10, true},      // unlimited
			{1000, "rate", 10, 10, true},  // no limited call since: not throttled
			{1000, "charge", 10, 0, false},
		}},
		{"burst set while unlimited: switched on full at it", 0, 0, []step{
			{0, "burst", 100, 100, true},
			{0, "rate", 10, 100, true},
		}},
		{"burst cut", 10, 10, []step{
			{0, "burst", 4, 4, true},
			{100, "charge", 4, 0, false},
			{1000, "read", 0, 4, true},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q := newQuota(tt.rate, int(tt.burst))
			q.get(t0) // the bucket starts full at t0
			for i, s := range tt.steps {
				switch s.do {
				case "charge":
					q.charge(at(s.ms), s.n)
				case "rate":
					q.setRate(at(s.ms), s.n)
				case "burst":
					q.setBurst(at(s.ms), s.n)
				}
				_, _, tok := q.get(at(s.ms))
				assert.InDelta(t, s.tokens, tok, 1e-9, "step %d", i)
				assert.Equal(t, s.allow, q.allow(at(s.ms)), "step %d: allow", i)
			}
		})
	}
}
