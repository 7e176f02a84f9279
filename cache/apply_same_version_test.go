package cache_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/cache"
	"github.com/tierkit/tierkit/memkv"
)

// TestApplySameVersionInStreamOrder: a commit may change one key twice, and
// the stream carries both changes at the commit's version, in order (memkv:
// "a key set twice takes its last write (the feed carries both, in order)").
// Apply applies events in order, so the second change must win: an entry
// refilled by the first must not count as already reflecting the second,
// which left the first value cached, vouched for by every later checkpoint.
func TestApplySameVersionInStreamOrder(t *testing.T) {
	type ev = cache.Event[string, string]
	refill := func(v string) ev { return ev{Kind: cache.Write, Key: "k", Version: 5, Value: v, Refill: true} }
	for _, tt := range []struct {
		name   string
		second ev
		want   string
		wantOK bool
	}{
		{"refill then refill", refill("b"), "b", true},
		{"refill then write", ev{Kind: cache.Write, Key: "k", Version: 5}, "", false},
		{"refill then delete", ev{Kind: cache.Delete, Key: "k", Version: 5}, "", false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			c := newCache[string, string](t, cache.Config[string]{Capacity: 10})
			c.Set("k", "v0")
			c.Apply(refill("a"), tt.second, ev{Kind: cache.Checkpoint, Version: 5})
			got, ok := c.TryGet("k")
			assert.Equal(t, tt.wantOK, ok)
			assert.Equal(t, tt.want, got)
		})
	}
}

// TestApplyMemkvFeedOfKeySetTwice follows a memkv store's change feed with
// refills: after a commit that sets a key twice, the cache holds what the
// store holds.
func TestApplyMemkvFeedOfKeySetTwice(t *testing.T) {
	ctx := context.Background()
	st, err := memkv.New(memkv.Config{})
	require.NoError(t, err)
	c := newCache[string, string](t, cache.Config[string]{Capacity: 10})
	sub := st.Subscribe()
	defer sub.Close()
	_, err = st.Put(ctx, []byte("k"), []byte("v0"))
	require.NoError(t, err)
	c.Set("k", "v0")
	_, err = st.Commit(ctx, &memkv.CommitRequest{Sets: [][]byte{[]byte("k"), []byte("a"), []byte("k"), []byte("b")}})
	require.NoError(t, err)
	st.Checkpoint()
	for range 10 {
		e, ok, err := sub.TryNext()
		require.NoError(t, err)
		if !ok {
			break
		}
		if e.Kind == memkv.EventCheckpoint {
			c.Apply(cache.Event[string, string]{Kind: cache.Checkpoint, Version: e.Version})
			continue
		}
		c.Apply(cache.Event[string, string]{Kind: cache.Write, Key: string(e.Key), Version: e.Version, Value: string(e.Value), Refill: true})
	}
	want, ok, err := st.Get(ctx, st.ReadVersion(), []byte("k"))
	require.NoError(t, err)
	require.True(t, ok)
	got, ok := c.TryGet("k")
	require.True(t, ok)
	assert.Equal(t, string(want), got, "the cache serves what the store no longer holds")
}
