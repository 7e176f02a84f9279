package main

import (
	"context"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/memkv"
)

// readExpiredSeq reads k, expired and not yet deleted, after WATCH of
// another key, then watches k and writes it in MULTI.
var readExpiredSeq = [][]string{{"WATCH", "{w}a"}, {"GET", "{w}k"}, {"WATCH", "{w}k"}, {"MULTI"},
	{"SET", "{w}k", "new"}, {"EXEC"}, {"GET", "{w}k"}}

// putExpiredOnRedis leaves k on a Redis server holding a value whose TTL
// ran out and that is not deleted yet (no active expiry, no access since):
// it waits on the server's own clock (TIME) for the TTL to pass. Reading the
// expiry (PEXPIRETIME) is an access: if the TTL ran out before it, Redis
// deletes the key then, so a TTL too short for this machine's round trip is
// tried again, longer.
func putExpiredOnRedis(t *testing.T, addr, k string) {
	ctx := context.Background()
	c := redis.NewClient(&redis.Options{Addr: addr, MaxRetries: -1})
	defer c.Close()
	require.NoError(t, c.Do(ctx, "DEBUG", "SET-ACTIVE-EXPIRE", "0").Err())
	for ttl := time.Millisecond; ttl <= time.Second; ttl *= 4 {
		require.NoError(t, c.Set(ctx, k, "old", ttl).Err())
		at, err := c.Do(ctx, "PEXPIRETIME", k).Int64()
		require.NoError(t, err)
		if at < 0 {
			continue // expired and deleted by this read: longer
		}
		untilRedisPasses(t, c, at)
		n, err := c.DBSize(ctx).Result()
		require.NoError(t, err)
		require.EqualValues(t, 1, n, "the expired key is still stored")
		return
	}
	t.Fatal("no TTL up to 1s outlived a read of it")
}

// untilRedisPasses polls Redis's clock (TIME) until it is past at, in Unix
// milliseconds, with a bound.
func untilRedisPasses(t *testing.T, c *redis.Client, at int64) {
	for range 100_000 {
		now, err := c.Time(context.Background()).Result()
		require.NoError(t, err)
		if now.UnixMilli() > at {
			return
		}
	}
	t.Fatal("Redis's clock did not pass the key's expiry")
}

// putExpiredOnMemkv stores k on its memkv shard with a value whose TTL ran
// out long ago, not yet deleted.
func putExpiredOnMemkv(t *testing.T, in *instance, k string) {
	st := mustMemkv(t, in.gw.backend).stores[in.gw.shard(k)]
	_, err := st.Commit(context.Background(), &memkv.CommitRequest{ReadVersion: st.ReadVersion(),
		Sets: [][]byte{[]byte(k), encodeValue([]byte("old"), 1)}})
	require.NoError(t, err)
}

// TestWatchAfterReadOfExpiredKeyAsRedis: Redis 7.0 commits WATCH a, GET k
// (k expired, not yet deleted: GET deletes it), WATCH k, MULTI, SET k,
// EXEC: k was not watched when it was deleted, and is unchanged since its
// WATCH. On memkv the later WATCH deleted the expired k (expireWatched), a
// write the gateway made itself, and the validation of the GET's read of k
// from the transaction's snapshot failed on it: EXEC answered null.
func TestWatchAfterReadOfExpiredKeyAsRedis(t *testing.T) {
	rs := startRedis(t, "--enable-debug-command", "yes")
	in := startGateway(t, Config{HTTPAddr: "-"})
	putExpiredOnRedis(t, rs.addr, "{w}k")
	putExpiredOnMemkv(t, in, "{w}k")
	p, err := dialPair(rs.addr, in.Addr())
	require.NoError(t, err)
	defer p.close()
	for _, c := range readExpiredSeq {
		want, werr := p.redis.do([][]string{c}, false)
		got, gerr := p.gw.do([][]string{c}, false)
		require.NoError(t, werr)
		require.NoError(t, gerr)
		require.Empty(t, sameExact(c, want[0], got[0]), "%s", quoteCmd(c))
	}
}

// TestWatchAfterReadOfExpiredKeyStillChecked: the read of k after WATCH is
// still validated up to the deletion of k by the later WATCH (stricter than
// Redis, as every read is: README): another client's write of k between
// the GET and that WATCH aborts EXEC, as does one after it (as in Redis),
// and so does k's expiry between the GET and the WATCH when k was live at
// the GET (the GET saw a value, gone by EXEC). Explicit time: the
// backend's clock moves the expiry past.
func TestWatchAfterReadOfExpiredKeyStillChecked(t *testing.T) {
	in := startGateway(t, Config{HTTPAddr: "-"})
	_, clock := setMemkvClock(t, in.gw.backend, time.Now())
	ctx := context.Background()
	const k = "{w}k"
	other := client(t, in, nil)
	run := func(put func(), before, after func()) (any, error) {
		put()
		cn := client(t, in, nil).Conn()
		defer cn.Close()
		require.NoError(t, cn.Do(ctx, "WATCH", "{w}a").Err())
		_ = cn.Do(ctx, "GET", k).Err()
		before()
		require.NoError(t, cn.Do(ctx, "WATCH", k).Err())
		after()
		require.NoError(t, cn.Do(ctx, "MULTI").Err())
		require.Equal(t, "QUEUED", cn.Do(ctx, "SET", k, "new").Val())
		return cn.Do(ctx, "EXEC").Result()
	}
	expired := func() { putExpiredOnMemkv(t, in, k) }
	write := func() { require.NoError(t, other.Set(ctx, k, "other", 0).Err()) }
	nothing := func() {}

	res, err := run(expired, nothing, nothing)
	require.NoError(t, err, "expired at the GET, deleted by the WATCH: no change")
	require.Equal(t, []any{"OK"}, res)

	_, err = run(expired, write, nothing)
	require.ErrorIs(t, err, redis.Nil, "a write of k between the GET and its WATCH aborts EXEC")
	_, err = run(expired, nothing, write)
	require.ErrorIs(t, err, redis.Nil, "a write of k after its WATCH aborts EXEC")

	// Live at the GET, expired by the backend's clock at the WATCH.
	live := func() { require.NoError(t, other.Set(ctx, k, "old", time.Hour).Err()) }
	jump := func() { clock.Add(int64(2 * time.Hour)) }
	clock.Store(time.Now().UnixNano())
	_, err = run(live, jump, nothing)
	require.ErrorIs(t, err, redis.Nil, "k live at the GET and expired by EXEC aborts it")
}
