package main

import (
	"context"
	"testing"
	"testing/synctest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// replicatedBackend is one shard with a replica behind its primary: a batch
// of GETs with no op that must read the primary (op.primary) is answered
// from stale, as redisBackend answers it from a replica; any other batch
// from the primary. The answer of a batch that reads hold is held until
// release closes: a batch in flight, behind which the group's next items
// gather in one batch.
type replicatedBackend struct {
	Backend         // the primary
	stale   Backend // the replica, behind it
	hold    string  // a key whose batch's answer is held
	release chan struct{}
}

func (b *replicatedBackend) Do(ctx context.Context, shard int, ops []op, out []opResult) error {
	target := b.Backend
	if allGets(ops) && !anyPrimary(ops) {
		target = b.stale
	}
	err := target.Do(ctx, shard, ops, out)
	if ops[0].key == b.hold {
		<-b.release
	}
	return err
}

// TestPrimaryGetNotDedupedIntoReplicaRead: a GET that must read its shard's
// primary (a read after WATCH outside the transaction: withShardReads) and
// another connection's GET of the same key that may read a replica, both of
// one tenant and in one batch, are not sent as one op: the batcher's
// de-duplication (Config.Key) kept the first, which may read a replica, and
// dropped the other's primary flag with it, so the batch went to a replica
// behind the primary and the GET after WATCH answered the older value
// (EXEC then committed a value computed from it over the newer write).
// Found by a review.
func TestPrimaryGetNotDedupedIntoReplicaRead(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		cfg, err := Config{NoHotLinger: true}.withDefaults()
		require.NoError(t, err)
		primary, err := newMemkvBackend(1)
		require.NoError(t, err)
		replica, err := newMemkvBackend(1)
		require.NoError(t, err)
		ctx := context.Background()
		set := func(b Backend, v string) {
			res := make([]opResult, 1)
			require.NoError(t, b.Do(ctx, 0, []op{{kind: opSet, key: "k", value: []byte(v)}}, res))
			require.NoError(t, res[0].err)
		}
		set(primary, "new")
		set(replica, "old") // the replica has not applied the last write yet
		b := &replicatedBackend{Backend: primary, stale: replica, hold: "held", release: make(chan struct{})}
		g, err := newGateway(cfg, b, nil)
		require.NoError(t, err)
		defer func() { _ = g.Close() }()

		held := make(chan opResult, 1)
		go func() { held <- g.one(ctx, g.open, op{kind: opGet, key: "held"}) }()
		synctest.Wait() // the group's batch is in flight: the next items gather
		anyRead, shardRead := make(chan opResult, 1), make(chan opResult, 1)
		go func() { anyRead <- g.one(ctx, g.open, op{kind: opGet, key: "k"}) }()
		synctest.Wait()
		go func() { shardRead <- g.one(withShardReads(ctx), g.open, op{kind: opGet, key: "k"}) }()
		synctest.Wait()
		close(b.release)
		require.NoError(t, (<-held).err)
		<-anyRead // may read either
		r := <-shardRead
		require.NoError(t, r.err)
		assert.Equal(t, "new", string(r.value), "a GET that must read the primary read a replica")
	})
}
