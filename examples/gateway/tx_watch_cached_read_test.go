package main

import (
	"context"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestReadAfterWatchAndOwnWriteSkipsCache: after WATCH and a write of its
// own, a connection's reads run outside the transaction (ownWrite). They
// must still read the shard, not the caching tier, whose hits may be as old
// as its staleness bound: WATCH k, SET other, GET k, MULTI, SET k from the
// value read, EXEC is Redis's check-and-set, and EXEC checks k only from
// its WATCH on. A GET that answered the cache's value from before another
// writer's change (made before the WATCH, behind the gateway's back: another
// gateway, a direct client; its feed event still on its way, here held by
// stopping the feeds) let EXEC commit a value computed from it, and the
// other writer's update was lost. Redis's GET after WATCH reads the key as
// it is.
func TestReadAfterWatchAndOwnWriteSkipsCache(t *testing.T) {
	for _, backend := range []string{"memkv", "redis"} {
		t.Run(backend, func(t *testing.T) {
			cfg := Config{CacheCapacity: 100, CacheStaleness: Duration(time.Minute)}
			var direct *redis.Client
			if backend == "redis" {
				addr := startRedis(t).addr
				cfg.Backend = BackendConfig{Kind: "redis", Redis: []string{addr}}
				direct = redis.NewClient(&redis.Options{Addr: addr})
				t.Cleanup(func() { _ = direct.Close() })
			}
			in := startGateway(t, cfg)
			ctx := context.Background()
			c := client(t, in, &redis.Options{PoolSize: 1})
			require.NoError(t, c.Set(ctx, "{n}k", "1", 0).Err())
			require.Equal(t, "1", c.Get(ctx, "{n}k").Val()) // cached
			in.gw.cache.stop()                              // the feed's events are late from here on
			if direct != nil {
				require.NoError(t, direct.Set(ctx, "{n}k", "5", 0).Err())
			} else {
				be := mustMemkv(t, in.gw.backend)
				_, err := be.stores[in.gw.shard("{n}k")].Put(ctx, []byte("{n}k"), encodeValue([]byte("5"), 0))
				require.NoError(t, err)
			}

			require.NoError(t, c.Watch(ctx, func(tx *redis.Tx) error {
				require.NoError(t, tx.Set(ctx, "{n}other", "x", 0).Err()) // the connection's own write
				v, err := tx.Get(ctx, "{n}k").Int()
				require.NoError(t, err)
				assert.Equal(t, 5, v, "a GET after WATCH reads the key as it is, not the cache's older value")
				_, err = tx.TxPipelined(ctx, func(p redis.Pipeliner) error {
					p.Set(ctx, "{n}k", v+1, 0)
					return nil
				})
				return err
			}, "{n}k"))
			var got string
			if direct != nil {
				got = direct.Get(ctx, "{n}k").Val()
			} else {
				be := mustMemkv(t, in.gw.backend)
				st := be.stores[in.gw.shard("{n}k")]
				raw, _, err := st.Get(ctx, st.ReadVersion(), []byte("{n}k"))
				require.NoError(t, err)
				got = string(raw[8:])
			}
			assert.Equal(t, "6", got, "EXEC wrote from the other writer's value")
		})
	}
}
