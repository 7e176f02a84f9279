package main

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/control"
)

// TestControlAuditClaimsAreChecked: the control section printed "audit log
// holds the newest %d" with whatever Stats.AuditLen was, and "stats: %d
// requests, %d applied, %d clamped, %d rate limited, %d rollback(s)" with
// whatever Stats counted: a registry that kept the oldest entries, or
// dropped all but a few, and one that miscounted the section's requests
// were printed with exit status 0. Found by a review.
func TestControlAuditClaimsAreChecked(t *testing.T) {
	const n = 20_000
	log := func(from, count int) []control.Entry {
		out := make([]control.Entry, count)
		for i := range out {
			out[i] = control.Entry{Seq: uint64(100 + from + i), Who: "bench", Knob: "batcher.linger",
				New: control.Duration(controlLinger(from + i))}
		}
		return out
	}
	newest := log(n-control.DefaultAuditSize, control.DefaultAuditSize)
	require.NoError(t, verify(controlAuditClaims(n, newest, control.DefaultAuditSize)...))

	err := verify(controlAuditClaims(n, log(0, control.DefaultAuditSize), control.DefaultAuditSize)...)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "audit log holds the newest 1024 changes, batcher.linger = 15ms to 12ms, not 1ms to 17ms")
	err = verify(controlAuditClaims(n, newest[1000:], 24)...)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "audit log holds the newest 1024, not 24 entries (Stats 24)")
	require.Error(t, verify(controlAuditClaims(n, newest, 1023)...), "Stats disagrees with the log")
	gap := log(n-control.DefaultAuditSize, control.DefaultAuditSize)
	gap[500].Seq += 7
	require.Error(t, verify(controlAuditClaims(n, gap, control.DefaultAuditSize)...), "not consecutive")

	ok := control.Stats{Requests: n + 3, Applied: n + 2, Changes: n + 3, Clamped: 1, RateLimited: 1, Rollbacks: 1, AuditLen: 1024}
	require.NoError(t, verify(controlStatsClaims(n, ok)...))
	bad := ok
	bad.Applied = n + 3
	err = verify(controlStatsClaims(n, bad)...)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "stats: 20003 requests, 20002 applied, 1 clamped, 1 rate limited, 1 rollback(s), not 20003, 20003, 1, 1, 1")
	bad = ok
	bad.Rollbacks = 0
	require.Error(t, verify(controlStatsClaims(n, bad)...))
}
