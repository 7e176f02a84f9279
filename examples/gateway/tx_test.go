package main

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// txBackends are the backends transactions run on: memkv validates by
// versions, Redis shards by key states (redisTxEngine). Each starts a gateway.
var txBackends = []struct {
	name  string
	start func(t *testing.T) *instance
}{
	{"memkv", func(t *testing.T) *instance { return startGateway(t, Config{}) }},
	{"redis", func(t *testing.T) *instance { in, _ := redisGateway(t, 2, 4); return in }},
}

// ttlOf returns the time left before key expires, read from the backend
// itself (the gateway has no TTL command): 0 for a key without expiry.
func ttlOf(t *testing.T, in *instance, key string) time.Duration {
	t.Helper()
	ctx := context.Background()
	sh := in.gw.shard(key)
	if m, ok := asMemkv(in.gw.backend); ok {
		st := m.stores[sh]
		raw, found, err := st.Get(ctx, st.ReadVersion(), []byte(key))
		require.NoError(t, err)
		require.True(t, found)
		exp := int64(binary.BigEndian.Uint64(raw[:8]))
		if exp == 0 {
			return 0
		}
		return time.Until(time.Unix(0, exp))
	}
	r, ok := asRedis(in.gw.backend)
	require.True(t, ok)
	d, err := r.shards[sh].PTTL(ctx, key).Result()
	require.NoError(t, err)
	return max(d, 0)
}

// TestWatchMultiExecCounter: concurrent clients increment a counter with the
// WATCH / GET / MULTI / SET / EXEC pattern, retrying when EXEC aborts. No
// increment is lost.
func TestWatchMultiExecCounter(t *testing.T) {
	for _, b := range txBackends {
		t.Run(b.name, func(t *testing.T) { testWatchCounter(t, b.start(t)) })
	}
}

func testWatchCounter(t *testing.T, in *instance) {
	ctx := context.Background()
	c := client(t, in, &redis.Options{PoolSize: 16})
	const workers, per = 8, 25
	var aborted atomic.Int64
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for range per {
				aborted.Add(int64(watchIncr(t, c, "{ctr}:n", func(p redis.Pipeliner) { p.Incr(ctx, "{ctr}:ops") })))
			}
		})
	}
	wg.Wait()
	assert.Equal(t, strconv.Itoa(workers*per), c.Get(ctx, "{ctr}:n").Val())
	assert.Equal(t, strconv.Itoa(workers*per), c.Get(ctx, "{ctr}:ops").Val())
	t.Logf("%d increments by %d clients; %d EXEC aborted by a concurrent write and retried", workers*per, workers, aborted.Load())
}

// watchIncr adds one to the integer at key the optimistic way (WATCH, GET,
// MULTI, SET n+1 and what also queues, EXEC), retrying while EXEC aborts
// (at most 1,000 times), and returns how many attempts aborted.
func watchIncr(t *testing.T, c *redis.Client, key string, also func(redis.Pipeliner)) int {
	ctx := context.Background()
	for attempt := 0; attempt < 1000; attempt++ {
		err := c.Watch(ctx, func(tx *redis.Tx) error {
			n, err := tx.Get(ctx, key).Int()
			if err != nil && !errors.Is(err, redis.Nil) {
				return err
			}
			_, err = tx.TxPipelined(ctx, func(p redis.Pipeliner) error {
				p.Set(ctx, key, strconv.Itoa(n+1), 0)
				if also != nil {
					also(p)
				}
				return nil
			})
			return err
		}, key)
		if !errors.Is(err, redis.TxFailedErr) {
			assert.NoError(t, err)
			return attempt
		}
	}
	t.Errorf("%s: 1,000 attempts aborted", key)
	return 1000
}

func TestTransactionErrors(t *testing.T) {
	for _, b := range txBackends {
		t.Run(b.name, func(t *testing.T) { testTransactionErrors(t, b.start(t)) })
	}
}

func testTransactionErrors(t *testing.T, in *instance) {
	ctx := context.Background()
	c := client(t, in, &redis.Options{PoolSize: 1})
	conn := c.Conn()
	defer conn.Close()

	// Reads inside a transaction see its own writes; results come back in order.
	res, err := conn.TxPipelined(ctx, func(p redis.Pipeliner) error {
		p.Set(ctx, "{t}:a", "1", 0)
		p.Get(ctx, "{t}:a")
		p.IncrBy(ctx, "{t}:a", 5)
		p.Exists(ctx, "{t}:a", "{t}:b")
		p.Del(ctx, "{t}:a")
		p.Get(ctx, "{t}:a")
		return nil
	})
	require.ErrorIs(t, err, redis.Nil) // the last GET
	assert.Len(t, res, 6)
	assert.Equal(t, "1", res[1].(*redis.StringCmd).Val())
	assert.Equal(t, int64(6), res[2].(*redis.IntCmd).Val())
	assert.Equal(t, int64(1), res[3].(*redis.IntCmd).Val())

	// INCR inside a transaction keeps the key's TTL, as outside; an overflow
	// fails that command only.
	require.NoError(t, conn.Set(ctx, "{t}:ttl", "5", time.Minute).Err())
	require.NoError(t, conn.Set(ctx, "{t}:max", strconv.FormatInt(math.MaxInt64, 10), 0).Err())
	res, err = conn.TxPipelined(ctx, func(p redis.Pipeliner) error {
		p.IncrBy(ctx, "{t}:ttl", 3)
		p.Incr(ctx, "{t}:max")
		p.Decr(ctx, "{t}:ttl")
		return nil
	})
	require.ErrorContains(t, err, "overflow")
	assert.Equal(t, int64(8), res[0].(*redis.IntCmd).Val())
	assert.ErrorContains(t, res[1].Err(), "overflow")
	assert.Equal(t, int64(7), res[2].(*redis.IntCmd).Val())
	assert.Equal(t, "7", conn.Get(ctx, "{t}:ttl").Val())
	assert.Greater(t, ttlOf(t, in, "{t}:ttl"), 50*time.Second, "the TTL survives INCR in a transaction")

	// Keys on two shards in one transaction are refused.
	var k1, k2 string
	for i := 0; k2 == ""; i++ {
		k := fmt.Sprint("x", i)
		if k1 == "" {
			k1 = k
		} else if in.gw.shard(k) != in.gw.shard(k1) {
			k2 = k
		}
	}
	_, err = conn.TxPipelined(ctx, func(p redis.Pipeliner) error {
		p.Set(ctx, k1, "1", 0)
		p.Set(ctx, k2, "1", 0)
		return nil
	})
	require.ErrorContains(t, err, "CROSSSLOT")

	// A bad command aborts the transaction; nothing is applied.
	require.NoError(t, conn.Do(ctx, "MULTI").Err())
	require.NoError(t, conn.Do(ctx, "SET", "{t}:c", "1").Err())
	require.ErrorContains(t, conn.Do(ctx, "NOSUCH").Err(), "unknown command")
	require.ErrorContains(t, conn.Do(ctx, "EXEC").Err(), "EXECABORT")
	require.ErrorIs(t, conn.Get(ctx, "{t}:c").Err(), redis.Nil)

	// A transaction longer than the limit is aborted; nothing is applied.
	require.NoError(t, conn.Do(ctx, "MULTI").Err())
	limit := in.gw.cfg.Limits.MaxTxCommands
	for range limit {
		require.NoError(t, conn.Do(ctx, "INCR", "{t}:long").Err())
	}
	require.ErrorContains(t, conn.Do(ctx, "INCR", "{t}:long").Err(), "transaction too long")
	require.ErrorContains(t, conn.Do(ctx, "EXEC").Err(), "EXECABORT")
	require.ErrorIs(t, conn.Get(ctx, "{t}:long").Err(), redis.Nil)

	require.ErrorContains(t, conn.Do(ctx, "EXEC").Err(), "EXEC without MULTI")
	require.NoError(t, conn.Do(ctx, "MULTI").Err())
	require.ErrorContains(t, conn.Do(ctx, "MULTI").Err(), "nested")
	require.NoError(t, conn.Do(ctx, "DISCARD").Err())
	require.NoError(t, conn.Do(ctx, "UNWATCH").Err())

	// Pipelined reads after WATCH run one at a time on the transaction.
	cmds, err := conn.Pipelined(ctx, func(p redis.Pipeliner) error {
		p.Do(ctx, "WATCH", "{t}:w")
		for i := range 8 {
			p.Get(ctx, fmt.Sprint("{t}:w", i))
		}
		p.Do(ctx, "UNWATCH")
		return nil
	})
	require.ErrorIs(t, err, redis.Nil)
	assert.Len(t, cmds, 10)
}

func TestKVScan(t *testing.T) {
	in := startGateway(t, Config{Tenants: []TenantConfig{{Name: "default"}, {Name: "shop", KeyPrefixes: []string{"shop:"}}}})
	ctx := context.Background()
	c := client(t, in, nil)
	for i := range 20 {
		require.NoError(t, c.Set(ctx, fmt.Sprintf("s:%02d", i), fmt.Sprint(i), 0).Err())
	}
	require.NoError(t, c.Set(ctx, "t:0", "x", 0).Err())
	res, err := c.Do(ctx, "KVSCAN", "s:05", "s:09").Slice()
	require.NoError(t, err)
	assert.Equal(t, []any{"s:05", "5", "s:06", "6", "s:07", "7", "s:08", "8"}, res)
	res, err = c.Do(ctx, "KVSCAN", "s:", "", "LIMIT", "3").Slice()
	require.NoError(t, err)
	assert.Equal(t, []any{"s:00", "0", "s:01", "1", "s:02", "2"}, res)

	// A pipelined write before the scan is seen by it.
	cmds, err := c.Pipelined(ctx, func(p redis.Pipeliner) error {
		p.Set(ctx, "s:055", "new", 0)
		p.Do(ctx, "KVSCAN", "s:05", "s:06")
		return nil
	})
	require.NoError(t, err)
	assert.Equal(t, []any{"s:05", "5", "s:055", "new"}, cmds[1].(*redis.Cmd).Val())

	shop := client(t, in, &redis.Options{Username: "shop", Password: "x"})
	require.ErrorContains(t, shop.Do(ctx, "KVSCAN", "s:", "t:").Err(), "NOPERM")
	require.NoError(t, shop.Do(ctx, "KVSCAN", "shop:a", "shop:z").Err())
}

// TestReadsAfterWatchObserved: reads after WATCH, served from the
// transaction, count in gateway_requests_total as in the tenant's requests.
func TestReadsAfterWatchObserved(t *testing.T) {
	in := startGateway(t, Config{})
	ctx := context.Background()
	c := client(t, in, nil)
	ten := in.gw.tenants["default"]
	series := func() float64 { return requestCount(t, in.gw, "default", "GET", "ok") }
	requests, observed := ten.requests.Load(), series()
	err := c.Watch(ctx, func(tx *redis.Tx) error {
		for range 3 {
			if err := tx.Get(ctx, "wk").Err(); err != redis.Nil {
				return err
			}
		}
		return nil
	}, "wk")
	require.NoError(t, err)
	// And WATCH, which reads its key from the store (under WATCH).
	assert.Equal(t, uint64(4), ten.requests.Load()-requests)
	assert.Equal(t, 3.0, series()-observed, "GETs after WATCH missing from gateway_requests_total")
}

// TestWatchCrossShardRefusedWhole: a WATCH refused with CROSSSLOT leaves the
// connection as it was, as Redis's refused commands do. It used to start the
// transaction on its first key's shard anyway, watching nothing: later
// reads of that shard came from the transaction (on memkv from its
// snapshot, so they missed other clients' writes), and a WATCH of a key on
// the other shard was refused too.
func TestWatchCrossShardRefusedWhole(t *testing.T) {
	for _, b := range txBackends {
		t.Run(b.name, func(t *testing.T) {
			in := b.start(t)
			ctx := context.Background()
			var k1, k2 string
			for i := 0; k2 == "" && i < 1000; i++ {
				k := fmt.Sprint("{w", i, "}k")
				if k1 == "" {
					k1 = k
				} else if in.gw.shard(k) != in.gw.shard(k1) {
					k2 = k
				}
			}
			require.NotEmpty(t, k2)
			conn := client(t, in, nil).Conn()
			defer conn.Close()
			other := client(t, in, nil)
			require.ErrorContains(t, conn.Do(ctx, "WATCH", k1, k2).Err(), "CROSSSLOT")
			require.NoError(t, other.Set(ctx, k1, "v", 0).Err())
			assert.Equal(t, "v", conn.Get(ctx, k1).Val(), "a read after the refused WATCH sees the store")
			require.NoError(t, conn.Do(ctx, "WATCH", k2).Err(), "nothing is watched: any shard may be")
			require.NoError(t, conn.Do(ctx, "UNWATCH").Err())
		})
	}
}
