package main

import (
	"context"
	"net"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestRedisCachingTierSeesReplicaOf: REPLICAOF run on the shard behind the
// gateway's back makes it load its new primary's data, with no keyspace
// notification and, once the command has been counted, nothing else to
// see either (a later full resync is counted nowhere). The markers kept
// vouching for the cache, so a value the primary does not hold was served
// as long as it stayed cached. Here the primary delays the sync by 1 s,
// and a client reads the key meanwhile: the checks that see the REPLICAOF
// (if they count it) empty the cache before the data changes, and the key
// is cached again.
// A read that starts more than the bound after the sync must see the
// primary's value; so must one after the shard is a primary again.
func TestRedisCachingTierSeesReplicaOf(t *testing.T) {
	const bound = 100 * time.Millisecond
	in, direct := redisCachingGateway(t, bound)
	primary := startRedis(t, "--repl-diskless-sync-delay", "1")
	ctx := context.Background()
	pc := redis.NewClient(&redis.Options{Addr: primary.addr, MaxRetries: -1})
	t.Cleanup(func() { _ = pc.Close() })
	require.NoError(t, pc.Set(ctx, "fk", "p", 0).Err())
	c := client(t, in, nil)
	require.NoError(t, c.Set(ctx, "fk", "a", 0).Err())
	syncFeed(t, in)
	require.Equal(t, "a", c.Get(ctx, "fk").Val()) // cached
	host, port, err := net.SplitHostPort(primary.addr)
	require.NoError(t, err)
	require.NoError(t, direct.Do(ctx, "REPLICAOF", host, port).Err())
	// A client reads fk until the sync: what it reads after the checks
	// saw the REPLICAOF is cached again.
	eventually(t, "the shard did not sync", func() bool {
		_ = c.Get(ctx, "fk")
		return direct.Get(ctx, "fk").Val() == "p"
	})
	requireReadsPast(t, c, bound, "fk", "p", "a value the sync replaced outlived the staleness bound")

	require.NoError(t, pc.Set(ctx, "fk", "q", 0).Err()) // replicated, announced on the shard
	eventually(t, "the shard did not replicate", func() bool { return direct.Get(ctx, "fk").Val() == "q" })
	require.NoError(t, direct.Do(ctx, "REPLICAOF", "NO", "ONE").Err())
	require.NoError(t, c.Set(ctx, "fk", "b", 0).Err())
	syncFeed(t, in)
	require.Equal(t, "b", c.Get(ctx, "fk").Val())
}

// TestRedisCachingTierSeesReplicaOfBetweenChecks: REPLICAOF, its sync and
// REPLICAOF NO ONE may all run between two marker checks, which then find
// a primary each time: the count of REPLICAOF shows it.
func TestRedisCachingTierSeesReplicaOfBetweenChecks(t *testing.T) {
	const bound = 100 * time.Millisecond
	in, direct := redisCachingGateway(t, bound)
	primary := startRedis(t, "--repl-diskless-sync-delay", "0")
	ctx := context.Background()
	c := client(t, in, nil)
	require.NoError(t, c.Set(ctx, "fk", "a", 0).Err())
	syncFeed(t, in)
	require.Equal(t, "a", c.Get(ctx, "fk").Val()) // cached
	host, port, err := net.SplitHostPort(primary.addr)
	require.NoError(t, err)
	require.NoError(t, direct.Do(ctx, "REPLICAOF", host, port).Err())
	eventually(t, "the shard did not sync", func() bool { return direct.Get(ctx, "fk").Err() == redis.Nil })
	require.NoError(t, direct.Do(ctx, "REPLICAOF", "NO", "ONE").Err())
	requireReadsPast(t, c, bound, "fk", "", "a value the sync removed outlived the staleness bound")

	sig := flushSignature("cmdstat_replicaof:calls=1,usec=9,usec_per_call=9.00,rejected_calls=0,failed_calls=0\r\n")
	assert.NotEmpty(t, sig, "REPLICAOF is counted")
	assert.True(t, expiriesUnseen("", sig), "the primary's keys may have expiries")
	assert.True(t, expiriesUnseen("", flushSignature("cmdstat_slaveof:calls=1\r\n")))
}

// requireReadsPast reads key through c for more than bound (the reads in
// between may be served from the cache), then requires a read to return
// want ("": no such key).
func requireReadsPast(t *testing.T, c *redis.Client, bound time.Duration, key, want, msg string) {
	t.Helper()
	ctx := context.Background()
	w := time.Now()
	for time.Since(w) <= bound+10*time.Millisecond {
		_ = c.Get(ctx, key)
	}
	v, err := c.Get(ctx, key).Result()
	if want == "" {
		assert.ErrorIs(t, err, redis.Nil, msg)
		return
	}
	assert.Equal(t, want, v, msg)
}

func TestIsReplica(t *testing.T) {
	assert.True(t, isReplica("# Replication\r\nrole:slave\r\nmaster_host:127.0.0.1\r\n"))
	assert.False(t, isReplica("# Replication\r\nrole:master\r\nconnected_slaves:0\r\n"))
	assert.False(t, isReplica(""))
}
