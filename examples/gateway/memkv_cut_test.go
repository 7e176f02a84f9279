package main

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/cache"
	"github.com/tierkit/tierkit/memkv"
)

type manualClock struct{ t time.Time }

func (m *manualClock) Now() time.Time { return m.t }

// A memkv checkpoint renews the cache's bound from its cut, not from when
// the shard's follower applies it: a checkpoint cut an hour ago and read
// now must leave the cache an hour old, not vouch for it as fresh.
func TestMemkvCheckpointRenewsFromItsCut(t *testing.T) {
	clk := &manualClock{t: time.Unix(1_000_000, 0)}
	c, err := cache.New[string, cached](cache.Config[string]{Capacity: 10, MaxStaleness: time.Second, Clock: clk})
	require.NoError(t, err)
	cut := clk.t.Add(time.Hour)
	clk.t = clk.t.Add(2 * time.Hour) // the follower reads it an hour late
	ev, ok := memkvCacheEvent(memkv.Event{Kind: memkv.EventCheckpoint, Version: 7, At: cut})
	require.True(t, ok)
	c.Apply(ev)
	require.Equal(t, time.Hour, c.CheckpointAge(), "the bound counts from the cut")

	ev, ok = memkvCacheEvent(memkv.Event{Kind: memkv.EventWrite, Version: 8, Key: []byte("k")})
	require.True(t, ok)
	require.Equal(t, cache.Write, ev.Kind)
	require.Equal(t, "k", ev.Key)
	require.True(t, ev.Cut.IsZero())
}
