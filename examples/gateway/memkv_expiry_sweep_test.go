package main

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/memkv"
)

// TestMemkvExpiredKeysReclaimed: keys whose TTL ran out and that nobody
// touches again (session tokens, SET tok:<id> v EX 60) leave the shard as
// writes go on, as Redis's active expiry removes them; before, memkv kept
// every expired key for good, so a steady stream of SETs with a TTL grew
// the shard without bound while the live keys stayed few.
func TestMemkvExpiredKeysReclaimed(t *testing.T) {
	now := time.Unix(1_000_000, 0)
	b := clockedMemkv(t, &now)
	s := b.stores[0]
	// A short history window, so that GC frees the deletions' markers.
	require.NoError(t, s.SetConfig(memkv.Config{HistoryVersions: 16}))
	const rounds, perRound = 20, 500
	for r := range rounds {
		for i := range perRound {
			putTTL(t, b, fmt.Sprintf("tok:%d:%d", r, i), time.Second)
		}
		now = now.Add(2 * time.Second) // this round's tokens expire
	}
	s.GC() // free the markers of the deletions behind the horizon
	// 10,000 tokens were written, at most 500 of them live at any time.
	held := s.Stats().Keys
	require.Less(t, held, int64(3*perRound), "keys held after %d expired tokens", rounds*perRound)
}

// clockedMemkv is a one-shard memkv backend whose clock reads *now.
func clockedMemkv(t *testing.T, now *time.Time) *memkvBackend {
	t.Helper()
	b, err := newMemkvBackend(1)
	require.NoError(t, err)
	b.now = func() time.Time { return *now }
	return b
}

// putTTL sets key to "v" on shard 0 of b with ttl, as SET key v PX does.
func putTTL(t *testing.T, b *memkvBackend, key string, ttl time.Duration) {
	t.Helper()
	out := make([]opResult, 1)
	require.NoError(t, b.Do(context.Background(), 0, []op{{kind: opSet, key: key, value: []byte("v"), ttl: ttl}}, out))
	require.NoError(t, out[0].err)
}
