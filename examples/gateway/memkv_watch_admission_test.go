package main

import (
	"context"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// On memkv a WATCH that reads the store (the first, expireWatched: each key
// read, an expired one deleted; a later one of keys not yet watched) is
// admitted as a read of its keys, as WATCH on Redis shards is
// (TestRedisWatchAdmitted). It was neither admitted nor charged: a shed
// tenant's WATCH answered OK and had the gateway read the store.
func TestMemkvWatchAdmitted(t *testing.T) {
	in := startGateway(t, Config{HTTPAddr: "-", MinLimit: 8, MaxLimit: 8, QueueDeadline: Duration(20 * time.Millisecond)})
	g := in.gw
	ctx := context.Background()
	c := client(t, in, nil).Conn()
	defer c.Close()
	require.NoError(t, c.Ping(ctx).Err())

	s0 := g.shedder.Stats()
	require.NoError(t, c.Do(ctx, "WATCH", "{w}a", "{w}b", "{w}c").Err())
	s1 := g.shedder.Stats()
	require.Equal(t, int64(3), s1.AdmittedCost-s0.AdmittedCost, "WATCH of 3 keys")
	require.Zero(t, s1.InFlight, "its admission given back")
	require.NoError(t, c.Do(ctx, "WATCH", "{w}a", "{w}b").Err())
	s2 := g.shedder.Stats()
	assert.Equal(t, s1.AdmittedCost, s2.AdmittedCost, "a WATCH of keys all watched reads nothing: not admitted")
	require.NoError(t, c.Do(ctx, "WATCH", "{w}a", "{w}d").Err())
	s3 := g.shedder.Stats()
	assert.Equal(t, int64(2), s3.AdmittedCost-s2.AdmittedCost, "a later WATCH of a new key reads it: admitted")
	require.NoError(t, c.Do(ctx, "UNWATCH").Err())

	shedN, errs := g.n.shed.Load(), g.n.errors.Load()
	release, err := g.shedder.Acquire(ctx, "other", 0, 8)
	require.NoError(t, err)
	getErr, watchErr := c.Get(ctx, "{w}a").Err(), c.Do(ctx, "WATCH", "{w}a").Err()
	release()
	require.ErrorContains(t, getErr, "OVERLOADED", "GET at the admission limit")
	require.ErrorContains(t, watchErr, "OVERLOADED", "WATCH's read of the same key")
	assert.Equal(t, uint64(2), g.n.shed.Load()-shedN, "both counted shed")
	assert.Equal(t, uint64(2), g.n.errors.Load()-errs, "and in the errors")
	assert.Zero(t, g.shedder.Stats().InFlight, "the refused WATCH holds no admission")
	_, err = c.TxPipelined(ctx, func(p redis.Pipeliner) error { return p.Set(ctx, "{x}k", "1", 0).Err() })
	require.NoError(t, err, "the refused WATCH left no transaction bound to its shard")
}

// TestMemkvWatchCountsAsARequest: a memkv WATCH that reads the store counts
// and is charged as a read of its keys does, as on Redis shards
// (TestRedisWatchCountsAsARequest): in the tenant's requests, one backend
// call carrying its keys (as a batch of GETs or an EXEC on memkv is), and
// refused over quota, in the errors and throttled counts. It counted
// nowhere, and a throttled tenant's WATCH answered OK.
func TestMemkvWatchCountsAsARequest(t *testing.T) {
	in := startGateway(t, Config{HTTPAddr: "-", Tenants: []TenantConfig{{Name: "default", QuotaRate: 0.001, QuotaBurst: 2}}})
	g := in.gw
	ctx := context.Background()
	c := client(t, in, nil).Conn()
	defer c.Close()
	ten := g.tenants["default"]
	type counts struct{ requests, errors, throttled, all, calls, ops uint64 }
	read := func() counts {
		return counts{ten.requests.Load(), g.n.errors.Load(), ten.throttled.Load(), g.n.throttled.Load(),
			ten.backendCalls.Load(), g.n.backendOps.Load()}
	}
	delta := func(a, b counts) counts {
		return counts{b.requests - a.requests, b.errors - a.errors, b.throttled - a.throttled, b.all - a.all,
			b.calls - a.calls, b.ops - a.ops}
	}

	s0 := read()
	require.NoError(t, c.Do(ctx, "WATCH", "{w}a", "{w}b").Err()) // one call of the burst
	s1 := read()
	assert.Equal(t, counts{requests: 1, calls: 1, ops: 2}, delta(s0, s1), "an admitted WATCH: one call of its 2 keys")
	_, _, tokens := ten.quota.get(time.Now())
	assert.InDelta(t, 1, tokens, 0.01, "charged one call")
	require.NoError(t, c.Do(ctx, "WATCH", "{w}a").Err())
	assert.Equal(t, s1, read(), "a WATCH of a key watched already reads nothing: not counted")
	require.NoError(t, c.Do(ctx, "UNWATCH").Err())

	require.ErrorIs(t, c.Get(ctx, "{w}a").Err(), redis.Nil) // the rest of the burst
	s2 := read()
	require.ErrorContains(t, c.Get(ctx, "{w}a").Err(), "THROTTLED")
	s3 := read()
	want := counts{requests: 1, errors: 1, throttled: 1, all: 1}
	require.Equal(t, want, delta(s2, s3), "a GET refused over quota")

	require.ErrorContains(t, c.Do(ctx, "WATCH", "{w}a").Err(), "THROTTLED")
	assert.Equal(t, want, delta(s3, read()), "a WATCH refused over quota counts as the GET")
	_, err := c.TxPipelined(ctx, func(p redis.Pipeliner) error { return p.Ping(ctx).Err() })
	require.NoError(t, err, "the refused WATCH left no transaction")
}
