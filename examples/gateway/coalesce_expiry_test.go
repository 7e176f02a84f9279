package main

import (
	"context"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// heldBackend answers its calls, then holds the answer of a call that reads
// key until release is closed, as a shard whose reply is on its way back.
type heldBackend struct {
	Backend
	key     string
	release chan struct{} // nil: nothing is held
}

func (b *heldBackend) Do(ctx context.Context, shard int, ops []op, out []opResult) error {
	err := b.Backend.Do(ctx, shard, ops, out)
	if b.release != nil && len(ops) == 1 && ops[0].kind == opGet && ops[0].key == b.key {
		<-b.release
	}
	return err
}

// TestCoalescedGetAfterExpiry: a GET that starts after its key's TTL ran out
// and joins a fetch that read the key before then answers null, as a GET of
// its own would, not the expired value.
func TestCoalescedGetAfterExpiry(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		cfg, err := Config{}.withDefaults()
		require.NoError(t, err)
		mk, err := newMemkvBackend(1)
		require.NoError(t, err)
		b := &heldBackend{Backend: mk, key: "k"}
		g, err := newGateway(cfg, b, nil)
		require.NoError(t, err)
		defer func() { _ = g.Close() }()
		ctx := context.Background()
		const ttl = 10 * time.Millisecond
		require.NoError(t, g.one(ctx, g.open, op{kind: opSet, key: "k", value: []byte("v"), ttl: ttl}).err)

		b.release = make(chan struct{})
		first, second := make(chan opResult, 1), make(chan opResult, 1)
		go func() { first <- g.one(ctx, g.open, op{kind: opGet, key: "k"}) }()
		synctest.Wait() // the shard read "v"; its answer is held
		time.Sleep(2 * ttl)
		go func() { second <- g.one(ctx, g.open, op{kind: opGet, key: "k"}) }()
		synctest.Wait() // the second GET joined the first one's fetch
		require.Equal(t, uint64(1), g.flights.Stats().Joins)
		close(b.release)
		<-first
		r := <-second
		require.NoError(t, r.err)
		assert.False(t, r.found, "a GET that started after the key expired read %q", r.value)
	})
}

// TestCachedGetAfterExpiry: with the caching tier, a GET that starts after
// its key's TTL ran out and joins another GET's cache fill, which read the
// key before then, answers null, as without the tier.
func TestCachedGetAfterExpiry(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		cfg, err := Config{}.withDefaults()
		require.NoError(t, err)
		mk, err := newMemkvBackend(1)
		require.NoError(t, err)
		b := &heldBackend{Backend: mk, key: "k"}
		g, err := newGateway(cfg, b, nil)
		require.NoError(t, err)
		ct, err := newCacheTier(1, 100, time.Hour)
		require.NoError(t, err)
		ct.followMemkv(mk)
		g.cache = ct
		defer func() { _ = g.Close() }()
		ctx := context.Background()
		const ttl = 10 * time.Millisecond
		require.NoError(t, g.one(ctx, g.open, op{kind: opSet, key: "k", value: []byte("v"), ttl: ttl}).err)
		synctest.Wait() // the SET's feed event reached the cache (a later one would cancel the fill)

		b.release = make(chan struct{})
		first, second := make(chan opResult, 1), make(chan opResult, 1)
		go func() { first <- g.one(ctx, g.open, op{kind: opGet, key: "k"}) }()
		synctest.Wait() // the shard read "v"; its answer is held
		time.Sleep(2 * ttl)
		go func() { second <- g.one(ctx, g.open, op{kind: opGet, key: "k"}) }()
		synctest.Wait() // the second GET joined the first one's fill
		close(b.release)
		<-first
		r := <-second
		require.Equal(t, uint64(1), ct.caches[0].Load().Stats().Coalesced)
		require.NoError(t, r.err)
		assert.False(t, r.found, "a GET that started after the key expired read %q", r.value)
	})
}
