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
	b, err := newMemkvBackend(1)
	require.NoError(t, err)
	now := time.Unix(1_000_000, 0)
	b.now = func() time.Time { return now }
	ctx := context.Background()
	s := b.stores[0]
	// A short history window, so that GC frees the deletions' markers.
	require.NoError(t, s.SetConfig(memkv.Config{HistoryVersions: 16}))
	const rounds, perRound = 20, 500
	out := make([]opResult, 1)
	for r := range rounds {
		for i := range perRound {
			o := op{kind: opSet, key: fmt.Sprintf("tok:%d:%d", r, i), value: []byte("v"), ttl: time.Second}
			require.NoError(t, b.Do(ctx, 0, []op{o}, out))
			require.NoError(t, out[0].err)
		}
		now = now.Add(2 * time.Second) // this round's tokens expire
	}
	s.GC() // free the markers of the deletions behind the horizon
	// 10,000 tokens were written, at most 500 of them live at any time.
	held := s.Stats().Keys
	require.Less(t, held, int64(3*perRound), "keys held after %d expired tokens", rounds*perRound)
}
