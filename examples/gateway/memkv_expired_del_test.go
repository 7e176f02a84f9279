package main

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestMemkvDelDropsExpiredValue: DEL of a key whose TTL ran out answers 0,
// as in Redis, and removes the expired value from the shard (expired keys
// are deleted lazily by the next write): it was kept, so a wall clock
// stepped back (an NTP correction) brought back a key the client had
// deleted, and the value held its memory for good.
func TestMemkvDelDropsExpiredValue(t *testing.T) {
	b, err := newMemkvBackend(1)
	require.NoError(t, err)
	now := time.Unix(1_000_000, 0)
	b.now = func() time.Time { return now }
	ctx := context.Background()
	out := make([]opResult, 1)
	require.NoError(t, b.Do(ctx, 0, []op{{kind: opSet, key: "k", value: []byte("v"), ttl: time.Second}}, out))
	now = now.Add(2 * time.Second)
	require.NoError(t, b.Do(ctx, 0, []op{{kind: opDel, key: "k"}}, out))
	require.NoError(t, out[0].err)
	require.False(t, out[0].found, "an expired key counts as absent: DEL answers 0")

	s := b.stores[0]
	_, ok, err := s.Get(ctx, s.ReadVersion(), []byte("k"))
	require.NoError(t, err)
	require.False(t, ok, "DEL left the expired value in the shard")

	now = now.Add(-2 * time.Second) // the wall clock steps back
	require.NoError(t, b.Do(ctx, 0, []op{{kind: opGet, key: "k"}}, out))
	require.False(t, out[0].found, "a deleted key came back: %q", out[0].value)
}

// TestMemkvJointDelDropsExpiredValues: a multi-key DEL on one shard (one
// commit) removes expired values too, and counts them absent.
func TestMemkvJointDelDropsExpiredValues(t *testing.T) {
	b, err := newMemkvBackend(1)
	require.NoError(t, err)
	now := time.Unix(1_000_000, 0)
	b.now = func() time.Time { return now }
	ctx := context.Background()
	out := make([]opResult, 3)
	require.NoError(t, b.Do(ctx, 0, []op{
		{kind: opSet, key: "a", value: []byte("v"), ttl: time.Second},
		{kind: opSet, key: "b", value: []byte("v"), ttl: time.Second},
		{kind: opSet, key: "c", value: []byte("v")},
	}, out))
	now = now.Add(2 * time.Second)
	require.NoError(t, b.Do(ctx, 0, []op{{kind: opDel, key: "a"}, {kind: opDel, key: "b", joint: true}, {kind: opDel, key: "c", joint: true}}, out))
	for i, want := range []bool{false, false, true} {
		require.NoError(t, out[i].err)
		require.Equal(t, want, out[i].found, "op %d", i)
	}
	s := b.stores[0]
	for _, k := range []string{"a", "b", "c"} {
		_, ok, err := s.Get(ctx, s.ReadVersion(), []byte(k))
		require.NoError(t, err)
		require.False(t, ok, "the joint DEL left %q in the shard", k)
	}
}
