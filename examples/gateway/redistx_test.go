package main

import (
	"context"
	"errors"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// redisTxSetup starts a gateway on one Redis shard and returns a gateway
// client and a direct client of the shard (a writer that bypasses the gateway).
func redisTxSetup(t *testing.T) (gw, direct *redis.Client) {
	in, shards := redisGateway(t, 1, 4)
	direct = redis.NewClient(&redis.Options{Addr: shards[0].addr, MaxRetries: -1})
	t.Cleanup(func() { _ = direct.Close() })
	return client(t, in, &redis.Options{PoolSize: 8}), direct
}

// TestRedisTxSeesDirectWrites: writes made on the shard by someone else (not
// through this gateway) between WATCH and EXEC abort the transaction, for a
// new value, a deletion, a new expiry and a key that appears; nothing of the
// aborted transaction is applied.
func TestRedisTxSeesDirectWrites(t *testing.T) {
	gw, direct := redisTxSetup(t)
	ctx := context.Background()
	cases := []struct {
		name   string
		before func(k string)
		touch  func(k string)
	}{
		{"new value", func(k string) { direct.Set(ctx, k, "a", 0) }, func(k string) { direct.Set(ctx, k, "b", 0) }},
		{"deleted", func(k string) { direct.Set(ctx, k, "a", 0) }, func(k string) { direct.Del(ctx, k) }},
		{"expiry set", func(k string) { direct.Set(ctx, k, "a", 0) }, func(k string) { direct.Expire(ctx, k, time.Hour) }},
		{"appeared", func(k string) { direct.Del(ctx, k) }, func(k string) { direct.Set(ctx, k, "a", 0) }},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			k := "w:" + c.name
			c.before(k)
			err := gw.Watch(ctx, func(tx *redis.Tx) error {
				c.touch(k) // after WATCH, before EXEC
				_, err := tx.TxPipelined(ctx, func(p redis.Pipeliner) error {
					p.Set(ctx, "w:out", c.name, 0)
					return nil
				})
				return err
			}, k)
			require.ErrorIs(t, err, redis.TxFailedErr)
			require.ErrorIs(t, direct.Get(ctx, "w:out").Err(), redis.Nil, "an aborted transaction wrote")
		})
	}

	// Not a conflict: a write to an unwatched, unread key; and (unlike
	// Redis's own WATCH) a rewrite with the same value and expiry.
	direct.Set(ctx, "w:k", "same", 0)
	err := gw.Watch(ctx, func(tx *redis.Tx) error {
		direct.Set(ctx, "w:other", "x", 0)
		direct.Set(ctx, "w:k", "same", 0)
		_, err := tx.TxPipelined(ctx, func(p redis.Pipeliner) error {
			p.Set(ctx, "w:out", "1", 0)
			return nil
		})
		return err
	}, "w:k")
	require.NoError(t, err)
	assert.Equal(t, "1", direct.Get(ctx, "w:out").Val())
}

// TestRedisTxReadInsideValidated: a key read inside MULTI (not watched) is
// validated too; a key read twice with different states cannot commit.
func TestRedisTxReadInsideValidated(t *testing.T) {
	gw, direct := redisTxSetup(t)
	ctx := context.Background()
	direct.Set(ctx, "r:a", "1", 0)
	conn := gw.Conn()
	defer conn.Close()
	require.NoError(t, conn.Do(ctx, "WATCH", "r:w").Err())
	require.Equal(t, "1", conn.Get(ctx, "r:a").Val()) // read after WATCH: joins the read set
	direct.Set(ctx, "r:a", "2", 0)
	_, err := conn.TxPipelined(ctx, func(p redis.Pipeliner) error {
		p.Set(ctx, "r:b", "x", 0)
		return nil
	})
	require.ErrorIs(t, err, redis.TxFailedErr)

	require.NoError(t, conn.Do(ctx, "WATCH", "r:w").Err())
	require.Equal(t, "2", conn.Get(ctx, "r:a").Val())
	direct.Set(ctx, "r:a", "3", 0)
	require.Equal(t, "3", conn.Get(ctx, "r:a").Val()) // a second state of r:a
	direct.Set(ctx, "r:a", "2", 0)                    // back to the first
	_, err = conn.TxPipelined(ctx, func(p redis.Pipeliner) error {
		p.Set(ctx, "r:b", "x", 0)
		return nil
	})
	require.ErrorIs(t, err, redis.TxFailedErr)
	require.ErrorIs(t, direct.Get(ctx, "r:b").Err(), redis.Nil)
}

// TestRedisTxExpiryAndTypes: SET EX inside a transaction keeps its expiry on
// the shard; reads see expiries set directly; a GET of a key of another type
// answers WRONGTYPE and the rest of the transaction applies, as in Redis
// (errors inside EXEC do not roll back).
func TestRedisTxExpiryAndTypes(t *testing.T) {
	gw, direct := redisTxSetup(t)
	ctx := context.Background()
	_, err := gw.TxPipelined(ctx, func(p redis.Pipeliner) error {
		p.Set(ctx, "e:a", "1", time.Minute)
		p.Set(ctx, "e:b", "2", 0)
		p.IncrBy(ctx, "e:n", 7)
		return nil
	})
	require.NoError(t, err)
	ttl := direct.PTTL(ctx, "e:a").Val()
	assert.Greater(t, ttl, 59*time.Second)
	assert.LessOrEqual(t, ttl, time.Minute)
	assert.Equal(t, time.Duration(-1), direct.PTTL(ctx, "e:b").Val())
	assert.Equal(t, "7", direct.Get(ctx, "e:n").Val())

	// A value that expires before EXEC reads as absent there.
	direct.Set(ctx, "e:short", "x", 0)
	direct.PExpire(ctx, "e:short", time.Hour)
	res, err := gw.TxPipelined(ctx, func(p redis.Pipeliner) error {
		p.Exists(ctx, "e:short")
		p.Del(ctx, "e:short")
		return nil
	})
	require.NoError(t, err)
	assert.Equal(t, int64(1), res[0].(*redis.IntCmd).Val())
	assert.Equal(t, int64(0), direct.Exists(ctx, "e:short").Val())

	direct.RPush(ctx, "e:list", "x")
	res, err = gw.TxPipelined(ctx, func(p redis.Pipeliner) error {
		p.Set(ctx, "e:c", "1", 0)
		p.Get(ctx, "e:list")
		return nil
	})
	require.ErrorContains(t, err, "WRONGTYPE")
	require.Len(t, res, 2)
	require.NoError(t, res[0].Err())
	assert.Equal(t, "1", direct.Get(ctx, "e:c").Val())

	require.ErrorContains(t, gw.Do(ctx, "KVSCAN", "a", "b").Err(), "memkv")
}

// TestRedisTxAgainstDirectIncr: gateway transactions (WATCH, GET, MULTI,
// SET n+1, EXEC) and direct INCRs on the shard update one counter at once.
// Every acknowledged increment of both kinds is in the final count: the
// commit script's check and write are atomic against the direct writer.
func TestRedisTxAgainstDirectIncr(t *testing.T) {
	gw, direct := redisTxSetup(t)
	ctx := context.Background()
	const workers, per, directN = 4, 30, 300
	var wg sync.WaitGroup
	var retries atomic.Int64
	wg.Go(func() {
		for range directN {
			if !assert.NoError(t, direct.Incr(ctx, "c:n").Err()) {
				return
			}
		}
	})
	for range workers {
		wg.Go(func() {
			for range per {
				retries.Add(int64(watchIncr(t, gw, "c:n", nil)))
			}
		})
	}
	wg.Wait()
	n := retries.Load()
	assert.Equal(t, strconv.Itoa(workers*per+directN), direct.Get(ctx, "c:n").Val())
	t.Logf("%d transactional + %d direct increments; %d transactions aborted and retried", workers*per, directN, n)
}

// TestRedisTxChargesRoundTrips: on a Redis shard each key a transaction reads
// is a round trip of its own, and so is the commit: WATCH of 3 keys, an MGET
// of 3 keys after it, and an EXEC that reads 3 keys charge the tenant (and
// backend_calls) 3, 3 and 4 backend calls, not 1 each.
func TestRedisTxChargesRoundTrips(t *testing.T) {
	shard := startRedis(t)
	in := startGateway(t, Config{Backend: BackendConfig{Kind: "redis", Redis: []string{shard.addr}, Pool: 2}})
	ctx := context.Background()
	c := client(t, in, nil)
	ten := in.gw.tenants["default"]
	var charged []uint64
	mark := func() {
		charged = append(charged, ten.backendCalls.Load())
		assert.Equal(t, ten.backendCalls.Load(), in.gw.n.backendCalls.Load(), "one tenant: the same calls")
	}
	mark()
	err := c.Watch(ctx, func(tx *redis.Tx) error {
		mark()
		if err := tx.MGet(ctx, "c1", "c2", "c3").Err(); err != nil {
			return err
		}
		mark()
		_, err := tx.TxPipelined(ctx, func(p redis.Pipeliner) error {
			p.Get(ctx, "d1")
			p.Get(ctx, "d2")
			p.Get(ctx, "d3")
			p.Set(ctx, "d4", "x", 0)
			return nil
		})
		if errors.Is(err, redis.Nil) {
			err = nil
		}
		return err
	}, "a1", "a2", "a3")
	require.NoError(t, err)
	mark()
	assert.Equal(t, []uint64{3, 3, 4}, []uint64{charged[1] - charged[0], charged[2] - charged[1], charged[3] - charged[2]},
		"backend calls charged by WATCH, MGET after it, EXEC")
}

// TestRedisTxFailedWatchWatchesNothing: a WATCH whose read of key state
// fails part way (here the read of fw:bad fails on the way to the shard)
// watches none of its keys, including those read before the failure: a
// later change to such a key does not abort the transaction. Keys watched
// before stay watched.
func TestRedisTxFailedWatchWatchesNothing(t *testing.T) {
	in, shards := redisGateway(t, 1, 4)
	direct := redis.NewClient(&redis.Options{Addr: shards[0].addr, MaxRetries: -1})
	t.Cleanup(func() { _ = direct.Close() })
	r, ok := asRedis(in.gw.backend)
	require.True(t, ok)
	r.shards[0].AddHook(failRead{key: "fw:bad"})
	ctx := context.Background()
	c := client(t, in, &redis.Options{PoolSize: 8}).Conn()
	t.Cleanup(func() { _ = c.Close() })
	direct.Set(ctx, "fw:a", "1", 0)

	exec := func() (any, error) {
		require.NoError(t, c.Do(ctx, "MULTI").Err())
		require.Equal(t, "QUEUED", c.Do(ctx, "SET", "fw:out", "v").Val())
		return c.Do(ctx, "EXEC").Result()
	}

	require.NoError(t, c.Do(ctx, "WATCH", "fw:first").Err())
	require.ErrorContains(t, c.Do(ctx, "WATCH", "fw:a", "fw:bad").Err(), errInjectedRead.Error())
	direct.Set(ctx, "fw:a", "2", 0) // not watched: the WATCH failed
	res, err := exec()
	require.NoError(t, err, "EXEC aborted by a key of a failed WATCH")
	require.Len(t, res, 1)

	// The keys watched before the failed WATCH still abort EXEC.
	require.NoError(t, c.Do(ctx, "WATCH", "fw:first").Err())
	require.ErrorContains(t, c.Do(ctx, "WATCH", "fw:a", "fw:bad").Err(), errInjectedRead.Error())
	direct.Set(ctx, "fw:first", "changed", 0)
	_, err = exec()
	require.ErrorIs(t, err, redis.Nil, "EXEC of a transaction whose watched key changed")
}

// failRead is a go-redis hook that fails each pipeline that reads key (the
// transaction engine's reads) with errInjectedRead, without sending it.
type failRead struct{ key string }

var errInjectedRead = errors.New("injected read failure")

func (h failRead) DialHook(next redis.DialHook) redis.DialHook          { return next }
func (h failRead) ProcessHook(next redis.ProcessHook) redis.ProcessHook { return next }
func (h failRead) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error {
		for _, c := range cmds {
			if a := c.Args(); len(a) == 2 && a[0] == "get" && a[1] == h.key {
				return errInjectedRead
			}
		}
		return next(ctx, cmds)
	}
}

// afterRead is a go-redis hook that calls fn after each pipeline (the
// transaction engine's reads are MULTI/GET/PEXPIRETIME/EXEC pipelines) that
// reads key: a seam between two reads of one transaction.
type afterRead struct {
	key string
	fn  func()
}

func (h afterRead) DialHook(next redis.DialHook) redis.DialHook          { return next }
func (h afterRead) ProcessHook(next redis.ProcessHook) redis.ProcessHook { return next }
func (h afterRead) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error {
		err := next(ctx, cmds)
		for _, c := range cmds {
			if a := c.Args(); len(a) == 2 && a[0] == "get" && a[1] == h.key {
				h.fn()
			}
		}
		return err
	}
}

// TestRedisTxReadOnlyIsAtomic: a transaction that only reads sees one state
// of its keys, as Redis's EXEC does. On a Redis shard each of its reads is a
// round trip of its own, so an atomic write of both keys between the two
// reads must abort it (EXEC answers null) rather than return the first key
// from before the write and the second from after. It used to commit without
// the script's check, as txn does for a read-only transaction (whose reads
// it takes for one snapshot, true on memkv only).
func TestRedisTxReadOnlyIsAtomic(t *testing.T) {
	in, shards := redisGateway(t, 1, 4)
	ctx := context.Background()
	direct := redis.NewClient(&redis.Options{Addr: shards[0].addr, MaxRetries: -1})
	t.Cleanup(func() { _ = direct.Close() })
	require.NoError(t, direct.MSet(ctx, "ro:a", "1", "ro:b", "1").Err())
	r, ok := asRedis(in.gw.backend)
	require.True(t, ok)
	var once sync.Once
	r.shards[0].AddHook(afterRead{key: "ro:a", fn: func() {
		once.Do(func() { assert.NoError(t, direct.MSet(ctx, "ro:a", "2", "ro:b", "2").Err()) })
	}})
	gw := client(t, in, nil)
	res, err := gw.TxPipelined(ctx, func(p redis.Pipeliner) error {
		p.Get(ctx, "ro:a")
		p.Get(ctx, "ro:b")
		return nil
	})
	if errors.Is(err, redis.TxFailedErr) {
		return // aborted: the client retries
	}
	require.NoError(t, err)
	assert.Equal(t, res[0].(*redis.StringCmd).Val(), res[1].(*redis.StringCmd).Val(),
		"EXEC returned one key from before an atomic write of both and one from after")
}
