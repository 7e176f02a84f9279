package main

import (
	"context"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"
)

// expiryEnv is one run's redis-server and gateway (memkv), each with a
// client of its own besides the compared connections.
type expiryEnv struct {
	t      *testing.T
	ctx    context.Context
	rs     *redisServer
	in     *instance
	rd, gw *redis.Client
	// gwExpiry is at or after the expiry putLive gave k on memkv: set
	// after the gateway's reply, so after the deadline it computed.
	gwExpiry time.Time
}

// expiryDiffCase is a transaction run alike on both, k expired or
// expiring, with a step between two of its commands.
type expiryDiffCase struct {
	name  string
	setup func(e *expiryEnv) // k's state before the first command
	at    int                // the step runs before command at
	step  func(e *expiryEnv)
	cmds  [][]string
}

// runExpiryDiff runs c on a fresh redis-server and gateway and compares
// every reply exactly.
func runExpiryDiff(t *testing.T, c expiryDiffCase) {
	e := &expiryEnv{t: t, ctx: context.Background(), rs: startRedis(t, "--enable-debug-command", "yes"),
		in: startGateway(t, Config{HTTPAddr: "-"})}
	e.rd = redis.NewClient(&redis.Options{Addr: e.rs.addr, MaxRetries: -1})
	t.Cleanup(func() { _ = e.rd.Close() })
	e.gw = client(t, e.in, nil)
	require.NoError(t, e.rd.Do(e.ctx, "DEBUG", "SET-ACTIVE-EXPIRE", "0").Err())
	c.setup(e)
	p, err := dialPair(e.rs.addr, e.in.Addr())
	require.NoError(t, err)
	defer p.close()
	for i, cmd := range c.cmds {
		if i == c.at {
			c.step(e)
		}
		want, werr := p.redis.do([][]string{cmd}, false)
		got, gerr := p.gw.do([][]string{cmd}, false)
		require.NoError(t, werr)
		require.NoError(t, gerr)
		require.Empty(t, sameExact(cmd, want[0], got[0]), "%s: %s", c.name, quoteCmd(cmd))
	}
}

// putExpired leaves k on both holding a value whose TTL ran out, not yet
// deleted.
func (e *expiryEnv) putExpired(k string) {
	putExpiredOnRedis(e.t, e.rs.addr, k)
	putExpiredOnMemkv(e.t, e.in, k)
}

// putLive sets k on both with a TTL of ttl.
func (e *expiryEnv) putLive(k string, ttl time.Duration) {
	require.NoError(e.t, e.rd.Set(e.ctx, k, "old", ttl).Err())
	require.NoError(e.t, e.gw.Set(e.ctx, k, "old", ttl).Err())
	e.gwExpiry = time.Now().Add(ttl)
}

// untilExpired polls both clocks (Redis's TIME, the wall clock memkv reads)
// until k's expiry on both has passed, with a bound. The gateway's SET came
// after Redis's, on a loaded machine milliseconds later: memkv's expiry is
// judged from gwExpiry, not from Redis's.
func (e *expiryEnv) untilExpired(k string) {
	at, err := e.rd.Do(e.ctx, "PEXPIRETIME", k).Int64()
	require.NoError(e.t, err)
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		now, err := e.rd.Time(e.ctx).Result()
		require.NoError(e.t, err)
		if now.UnixMilli() > at+1 && time.Now().After(e.gwExpiry.Add(time.Millisecond)) {
			return
		}
	}
	e.t.Fatal("the clocks did not pass the key's expiry")
}

// sweep deletes the expired k on both as their expiry does: on Redis
// another client's read, on memkv the shard's sweep, as writes make it.
func (e *expiryEnv) sweep(k string) {
	require.ErrorIs(e.t, e.rd.Get(e.ctx, k).Err(), redis.Nil)
	n, err := e.rd.Exists(e.ctx, k).Result()
	require.NoError(e.t, err)
	require.Zero(e.t, n)
	m := mustMemkv(e.t, e.in.gw.backend)
	sh := e.in.gw.shard(k)
	m.sweeps[sh].owed.Store(sweepBatch)
	m.sweep(e.ctx, sh, time.Now())
	st := m.stores[sh]
	_, found, err := st.Get(e.ctx, st.ReadVersion(), []byte(k))
	require.NoError(e.t, err)
	require.False(e.t, found, "the sweep deleted the expired key")
}

const expK = "{w}k"

// TestWatchedKeyExpiryAsRedis: a watched key's expiry against redis-server
// 7: expired at WATCH then deleted by expiry (commits), live at WATCH then
// expired (aborts, deleted or not), expired at WATCH then written by
// another client (aborts).
func TestWatchedKeyExpiryAsRedis(t *testing.T) {
	tx := [][]string{{"WATCH", expK}, {"MULTI"}, {"SET", expK, "new"}, {"EXEC"}, {"GET", expK}}
	expired := func(e *expiryEnv) { e.putExpired(expK) }
	live := func(e *expiryEnv) { e.putLive(expK, 300*time.Millisecond) }
	for _, c := range []expiryDiffCase{
		{name: "expired, swept", setup: expired, at: 1, step: func(e *expiryEnv) { e.sweep(expK) }},
		{name: "expired, not swept", setup: expired, at: 1, step: func(*expiryEnv) {}},
		{name: "live, expired", setup: live, at: 3, step: func(e *expiryEnv) { e.untilExpired(expK) }},
		{name: "live, expired, swept", setup: live, at: 3, step: func(e *expiryEnv) { e.untilExpired(expK); e.sweep(expK) }},
		{name: "expired, set by another", setup: expired, at: 1, step: func(e *expiryEnv) {
			require.NoError(t, e.rd.Set(e.ctx, expK, "other", 0).Err())
			require.NoError(t, e.gw.Set(e.ctx, expK, "other", 0).Err())
		}},
		{name: "expired, swept, set by another", setup: expired, at: 1, step: func(e *expiryEnv) {
			e.sweep(expK)
			require.NoError(t, e.rd.Set(e.ctx, expK, "other", 0).Err())
			require.NoError(t, e.gw.Set(e.ctx, expK, "other", 0).Err())
		}},
	} {
		c.cmds = tx
		t.Run(c.name, func(t *testing.T) { runExpiryDiff(t, c) })
	}
}

// TestReadInMultiOfSweptKeyAsRedis: a key read inside MULTI (not watched)
// that had expired by WATCH and was deleted by expiry before EXEC.
func TestReadInMultiOfSweptKeyAsRedis(t *testing.T) {
	for _, c := range []expiryDiffCase{
		{name: "GET", cmds: [][]string{{"WATCH", "{w}a"}, {"MULTI"}, {"GET", expK}, {"SET", "{w}a", "x"}, {"EXEC"}}},
		{name: "INCR", cmds: [][]string{{"WATCH", "{w}a"}, {"MULTI"}, {"INCR", expK}, {"EXEC"}, {"GET", expK}}},
	} {
		c.setup = func(e *expiryEnv) { e.putExpired(expK) }
		c.at, c.step = 1, func(e *expiryEnv) { e.sweep(expK) }
		t.Run(c.name, func(t *testing.T) { runExpiryDiff(t, c) })
	}
}
