package main

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// nullBackend answers every call at once and counts the calls.
type nullBackend struct{ calls atomic.Int64 }

func (*nullBackend) Shards() int { return 1 }
func (b *nullBackend) Do(context.Context, int, []op, []opResult) error {
	b.calls.Add(1)
	return nil
}
func (*nullBackend) Close() error { return nil }

// TestChaosBurnEndsAtTheDeadline: chaos.burn_us is burned per op, so a batch
// of many ops at the largest burn is seconds of CPU. The burn ignored the
// call's context: a batch of 300 ops burned its 3 s past a 20 ms deadline
// (request_timeout), holding the shard's in-flight slot and a locked thread
// all along, then ran the call its caller had given up on. It now stops at
// the deadline, as chaos.delay_us does, and the call is not made.
func TestChaosBurnEndsAtTheDeadline(t *testing.T) {
	nb := &nullBackend{}
	c := &chaosBackend{Backend: nb}
	c.burn.Store(int64(chaosMaxBurn))
	ops := make([]op, 300) // 3 s of CPU at the largest burn
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	start := time.Now()
	err := c.Do(ctx, 0, ops, make([]opResult, len(ops)))
	took := time.Since(start)
	require.ErrorIs(t, err, context.DeadlineExceeded)
	assert.Less(t, took, time.Second, "the burn outlived the deadline")
	assert.Zero(t, nb.calls.Load(), "the call ran after its deadline")
}
