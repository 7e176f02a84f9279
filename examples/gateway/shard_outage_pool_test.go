package main

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// txIncr runs WATCH k, MULTI, INCR k, EXEC on c.
func txIncr(ctx context.Context, c *redis.Client, k string) error {
	return c.Watch(ctx, func(tx *redis.Tx) error {
		_, err := tx.TxPipelined(ctx, func(p redis.Pipeliner) error {
			p.Incr(ctx, k)
			return nil
		})
		return err
	}, k)
}

// TestShardRestartUnderLoadKeepsPool: 20 clients keep sending GETs, SETs
// and WATCH/MULTI/EXEC to a shard while it is killed and restarted on its
// port: every kind of command fails while it is down and succeeds again
// within about a second of its return, without a gateway restart; the
// shard sees no more of the gateway's connections than the pool allows
// (go-redis: pool; rueidis: its multiplexed connections plus the
// transactions' pool).
func TestShardRestartUnderLoadKeepsPool(t *testing.T) {
	eachClient(t, func(t *testing.T, kind string) {
		const pool = 2
		in, shards := redisGatewayWith(t, 2, pool, kind)
		ctx := context.Background()
		k := keysOn(in, 2)[1]
		c := client(t, in, nil)
		require.NoError(t, c.Set(ctx, k, "1", 0).Err())
		shards[1].stop()

		var back atomic.Int64  // unix ns of the restart; 0 while down
		var ok [3]atomic.Int64 // per kind: unix ns of the first success after the restart
		stop := make(chan struct{})
		var wg sync.WaitGroup
		for i := range 20 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				cc := client(t, in, nil)
				for {
					select {
					case <-stop:
						return
					default:
					}
					var err error
					switch i % 3 {
					case 0:
						err = cc.Get(ctx, k).Err()
					case 1:
						err = cc.Set(ctx, k, "2", 0).Err()
					case 2:
						err = txIncr(ctx, cc, k)
					}
					if err == redis.Nil || err == redis.TxFailedErr {
						err = nil
					}
					if err == nil && back.Load() != 0 {
						ok[i%3].CompareAndSwap(0, time.Now().UnixNano())
					}
				}
			}()
		}
		eventually(t, "the load did not meet the outage", func() bool { return in.gw.health[1].failed.Load() >= 50 })
		restart(t, shards[1])
		back.Store(time.Now().UnixNano())
		most := 0
		eventuallyWithin(t, 3*time.Second, "every kind succeeds again", func() bool {
			most = max(most, gatewayConns(t, shards[1]))
			return ok[0].Load() != 0 && ok[1].Load() != 0 && ok[2].Load() != 0
		})
		for range 20 {
			most = max(most, gatewayConns(t, shards[1]))
		}
		close(stop)
		wg.Wait()
		for i, what := range []string{"GET", "SET", "WATCH/EXEC"} {
			d := time.Duration(ok[i].Load() - back.Load())
			// go-redis redials once a second after failed dials: about a
			// second, bounded at 3 s (the wait above) for a busy host.
			t.Logf("%s recovered %v after the restart", what, d)
			assert.Less(t, d, 3*time.Second, "%s recovers", what)
		}
		bound := pool
		if kind == "rueidis" {
			bound = 2 * pool
		}
		assert.LessOrEqual(t, most, bound, "the gateway's connections to the shard")
		t.Logf("at most %d connections", most)
	})
}

// TestWatchExecOnDeadShard: WATCH of a dead shard's key, and a transaction
// on its keys, fail promptly with the shard's error; the connection then
// serves the live shard, whose transactions commit; once the shard is back,
// a transaction on it commits.
func TestWatchExecOnDeadShard(t *testing.T) {
	eachClient(t, func(t *testing.T, kind string) {
		in, shards := redisGatewayWith(t, 2, 2, kind)
		ctx := context.Background()
		keyOn := keysOn(in, 2)
		live, dead := keyOn[0], keyOn[1]
		c := client(t, in, &redis.Options{PoolSize: 1})
		require.NoError(t, c.MSet(ctx, live, "1", dead, "1").Err())
		shards[1].stop()

		start := time.Now()
		err := txIncr(ctx, c, dead)
		require.Error(t, err)
		assert.Contains(t, err.Error(), shards[1].addr, "the error names the dead shard")
		assert.Less(t, time.Since(start), 1500*time.Millisecond, "WATCH fails promptly")

		start = time.Now()
		cmds, err := c.TxPipelined(ctx, func(p redis.Pipeliner) error {
			p.Incr(ctx, dead)
			return nil
		})
		require.Error(t, err)
		assert.Contains(t, err.Error(), shards[1].addr, "the error names the dead shard")
		assert.Equal(t, err, cmds[0].Err(), "EXEC fails its command with the shard's error")
		assert.Less(t, time.Since(start), 1500*time.Millisecond, "EXEC fails promptly")

		require.NoError(t, txIncr(ctx, c, live), "the live shard's transactions commit")
		assert.Equal(t, "2", c.Get(ctx, live).Val())

		restart(t, shards[1])
		start = time.Now()
		eventuallyWithin(t, 3*time.Second, "the shard serves", func() bool { return c.Set(ctx, dead, "5", 0).Err() == nil })
		eventuallyWithin(t, 3*time.Second, "a transaction on the shard commits", func() bool { return txIncr(ctx, c, dead) == nil })
		t.Logf("transactions recovered %v after the restart", time.Since(start))
		assert.Equal(t, "6", c.Get(ctx, dead).Val())
	})
}
