package main

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestMemkvSweepKeepsOwedWalkOnFailure: a sweep whose walk fails (its
// batch's context ended, or the history window passed its read version)
// leaves the keys the writes owed it to the next walk. They were dropped:
// the walk fell behind the writes, so a full pass took more than n/4 writes
// and expired keys held memory beyond the bound the backend promises.
// Explicit time: the backend's clock.
func TestMemkvSweepKeepsOwedWalkOnFailure(t *testing.T) {
	now := time.Unix(1_000_000, 0)
	b := clockedMemkv(t, &now)
	ctx := context.Background()
	s := b.stores[0]
	const keys = sweepBatch
	for i := range keys {
		putTTL(t, b, fmt.Sprintf("tok:%03d", i), time.Second)
	}
	now = now.Add(2 * time.Second) // every token expires
	sw := &b.sweeps[0]
	sw.owed.Store(keys) // the writes owe a walk over every key
	sw.next = sw.next[:0]

	canceled, cancel := context.WithCancel(ctx)
	cancel()
	b.sweep(canceled, 0, now) // the walk fails at once
	require.Equal(t, int64(keys), sw.owed.Load(), "the failed walk's keys are still owed")

	b.sweep(ctx, 0, now) // the next walk does what the failed one owed
	for i := range keys {
		_, ok, err := s.Get(ctx, s.ReadVersion(), fmt.Appendf(nil, "tok:%03d", i))
		require.NoError(t, err)
		require.False(t, ok, "tok:%03d: expired and walked over, still stored", i)
	}
}
