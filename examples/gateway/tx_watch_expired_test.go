package main

import (
	"context"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/memkv"
)

// TestWatchOfExpiredKeyIgnoresItsDeletion: Redis 7 does not abort EXEC
// when a key that had already expired at WATCH is deleted by expiry after
// it (logically the key did not change: absent then, absent now), and
// does abort when a write of the key comes in between. On memkv that
// deletion is the expiry sweep's commit, a version of the key, which
// aborted the transaction (a lock pattern: WATCH of a lock whose TTL ran
// out, MULTI, SET, EXEC answered null whenever writes to the shard swept
// the lock meanwhile).
func TestWatchOfExpiredKeyIgnoresItsDeletion(t *testing.T) {
	in := startGateway(t, Config{HTTPAddr: "-"})
	m := mustMemkv(t, in.gw.backend)
	ctx := context.Background()
	const k = "{w}k"
	sh := in.gw.shard(k)
	st := m.stores[sh]
	putExpired := func() { // a value whose TTL ran out long ago, not yet deleted
		_, err := st.Commit(ctx, &memkv.CommitRequest{ReadVersion: st.ReadVersion(),
			Sets: [][]byte{[]byte(k), encodeValue([]byte("old"), 1)}})
		require.NoError(t, err)
	}
	c, other := client(t, in, nil), client(t, in, nil)
	set := func(tx *redis.Tx) error {
		_, err := tx.TxPipelined(ctx, func(p redis.Pipeliner) error { return p.Set(ctx, k, "new", 0).Err() })
		return err
	}

	putExpired()
	err := c.Watch(ctx, func(tx *redis.Tx) error {
		require.ErrorIs(t, tx.Get(ctx, k).Err(), redis.Nil)
		m.sweeps[sh].owed.Store(sweepBatch) // as the writes to the shard make it
		m.sweep(ctx, sh, time.Now())
		_, found, err := st.Get(ctx, st.ReadVersion(), []byte(k))
		require.NoError(t, err)
		require.False(t, found, "the expired key is deleted by now")
		return set(tx)
	}, k)
	require.NoError(t, err, "the key had expired at WATCH: its deletion is no change")
	require.Equal(t, "new", c.Get(ctx, k).Val())

	putExpired()
	err = c.Watch(ctx, func(tx *redis.Tx) error {
		require.NoError(t, other.Set(ctx, k, "other", 0).Err())
		return set(tx)
	}, k)
	require.ErrorIs(t, err, redis.TxFailedErr, "a write of the expired key since WATCH aborts EXEC")
	require.Equal(t, "other", c.Get(ctx, k).Val())
}

// TestWatchOfExpiredKeyAfterOwnWrite: a key that had already expired when a
// later WATCH named it, after the connection's own write outside MULTI, is
// no change either when the expiry sweep deletes it before EXEC: Redis 7
// commits (absent then, absent now). On memkv that WATCH checked the key
// from the store's version then, and only the first WATCH and one before
// the connection's write deleted an expired key first: the sweep's
// deletion aborted EXEC.
func TestWatchOfExpiredKeyAfterOwnWrite(t *testing.T) {
	in := startGateway(t, Config{HTTPAddr: "-"})
	m := mustMemkv(t, in.gw.backend)
	ctx := context.Background()
	const a, b, k = "{w}a", "{w}b", "{w}k"
	sh := in.gw.shard(k)
	st := m.stores[sh]
	cn := client(t, in, nil).Conn()
	defer cn.Close()
	require.NoError(t, cn.Do(ctx, "WATCH", a).Err())
	require.NoError(t, cn.Do(ctx, "SET", b, "x").Err(), "the connection's own write")
	_, err := st.Commit(ctx, &memkv.CommitRequest{ReadVersion: st.ReadVersion(),
		Sets: [][]byte{[]byte(k), encodeValue([]byte("old"), 1)}}) // expired long ago, not yet deleted
	require.NoError(t, err)
	require.NoError(t, cn.Do(ctx, "WATCH", k).Err())
	m.sweeps[sh].owed.Store(sweepBatch) // as the writes to the shard make it
	m.sweep(ctx, sh, time.Now())
	_, found, err := st.Get(ctx, st.ReadVersion(), []byte(k))
	require.NoError(t, err)
	require.False(t, found, "the expired key is deleted by now")
	require.NoError(t, cn.Do(ctx, "MULTI").Err())
	require.Equal(t, "QUEUED", cn.Do(ctx, "SET", k, "new").Val())
	res, err := cn.Do(ctx, "EXEC").Result()
	require.NoError(t, err, "the key had expired at its WATCH: its deletion is no change")
	require.Equal(t, []any{"OK"}, res)
}
