package main

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"
)

// hookCtx runs hook (once) at the n-th call of Err: memkv checks the context
// first thing in a read, after the gateway took its read version, so the
// hook stands for a commit of another client landing in between.
type hookCtx struct {
	context.Context
	n    int
	hook func()
}

func (c *hookCtx) Err() error {
	c.n--
	if c.n == 0 && c.hook != nil {
		h := c.hook
		c.hook = nil
		h()
	}
	return c.Context.Err()
}

// bigMSet writes a and b in one commit of more than memkvHistoryBytes, so
// that the shard's history window moves to that commit: every read version
// before it is too old.
func bigMSet(t *testing.T, b *memkvBackend, tag byte) {
	val := make([]byte, memkvHistoryBytes/2+1)
	val[0] = tag
	out := make([]opResult, 2)
	require.NoError(t, b.Do(context.Background(), 0, []op{{kind: opSet, key: "a", value: val}, {kind: opSet, key: "b", value: val, joint: true}}, out))
	require.NoError(t, out[0].err)
	require.NoError(t, out[1].err)
}

// TestMemkvMGetTooOldRereadsWholeSnapshot: the reads of a batch share one
// read version, so an MGET never sees an MSET on its shard half applied.
// When the history window passed that version between two of its reads,
// the read that failed was re-read at the newest version alone, and the
// MGET answered a from before the MSET and b from after it.
func TestMemkvMGetTooOldRereadsWholeSnapshot(t *testing.T) {
	b, err := newMemkvBackend(1)
	require.NoError(t, err)
	bigMSet(t, b, 1)
	ctx := &hookCtx{Context: context.Background(), n: 2, hook: func() { bigMSet(t, b, 2) }}
	out := make([]opResult, 2)
	require.NoError(t, b.Do(ctx, 0, []op{{kind: opGet, key: "a"}, {kind: opGet, key: "b"}}, out))
	for i, r := range out {
		require.NoError(t, r.err)
		require.True(t, r.found)
		require.Equal(t, out[0].value[0], r.value[0], "key %d read from another version than key 0", i)
	}
}

// TestMemkvWriteRetriesTooOldRead: a write reads its key at the newest
// version, then commits; when the window passed that version before the
// read (a large commit landed in between), the write failed with ErrTooOld,
// where a failed commit is retried.
func TestMemkvWriteRetriesTooOldRead(t *testing.T) {
	b, err := newMemkvBackend(1)
	require.NoError(t, err)
	ctx := &hookCtx{Context: context.Background(), n: 1, hook: func() { bigMSet(t, b, 1) }}
	out := make([]opResult, 1)
	require.NoError(t, b.Do(ctx, 0, []op{{kind: opIncr, key: "n", delta: 1}}, out))
	require.NoError(t, out[0].err)
	require.EqualValues(t, 1, out[0].n)
}
