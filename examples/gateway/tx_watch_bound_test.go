package main

import (
	"context"
	"fmt"
	"testing"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestWatchedKeysBounded: the keys a connection watches are bounded by
// max_args in all, not only per WATCH. Before, each WATCH of new keys added
// to what the connection held until EXEC, and searched it linearly for each
// key: 100 WATCHes of 1,000 short keys took 35 s of the gateway's CPU, and
// memory grew with every WATCH. A WATCH over the bound is refused and
// changes nothing: the keys watched before still abort EXEC.
func TestWatchedKeysBounded(t *testing.T) {
	for _, b := range memkvAndRedis() {
		t.Run(b.name, func(t *testing.T) {
			const limit = 8
			in := b.start(t, Config{Limits: Limits{MaxArgs: limit}})
			ctx := context.Background()
			c := client(t, in, &redis.Options{PoolSize: 1})
			other := client(t, in, nil)
			conn := c.Conn()
			t.Cleanup(func() { _ = conn.Close() })
			watch := func(from, n int) error {
				args := []any{"WATCH"}
				for i := from; i < from+n; i++ {
					args = append(args, fmt.Sprintf("{w}k%d", i))
				}
				return conn.Do(ctx, args...).Err()
			}
			require.NoError(t, watch(0, limit-1))
			require.NoError(t, watch(0, limit-1), "keys watched already add nothing")
			require.NoError(t, watch(limit-2, 2), "one new key: at the bound")
			err := watch(limit, 1)
			require.Error(t, err, "a WATCH past max_args keys in all")
			assert.Contains(t, err.Error(), "too many watched keys")
			require.NoError(t, other.Set(ctx, "{w}k1", "x", 0).Err())
			_, err = conn.TxPipelined(ctx, func(p redis.Pipeliner) error {
				p.Set(ctx, "{w}out", "1", 0)
				return nil
			})
			require.ErrorIs(t, err, redis.TxFailedErr, "a key watched before the refused WATCH changed")
			require.NoError(t, watch(limit, 1), "EXEC ended the transaction: nothing is watched")
		})
	}
}

// startBackend starts a gateway on one kind of backend, for the tests that
// run the same steps on both.
type startBackend struct {
	name  string
	start func(t *testing.T, cfg Config) *instance
}

// memkvAndRedis starts a gateway on memkv, or on one redis-server shard
// (pool 2) that it starts.
func memkvAndRedis() []startBackend {
	return []startBackend{
		{"memkv", func(t *testing.T, cfg Config) *instance { return startGateway(t, cfg) }},
		{"redis", func(t *testing.T, cfg Config) *instance {
			r := startRedis(t)
			cfg.Backend = BackendConfig{Kind: "redis", Redis: []string{r.addr}, Pool: 2}
			return startGateway(t, cfg)
		}},
	}
}
