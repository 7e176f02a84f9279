package main

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestPartialWriteOverShardShareIsNotARefusal: an MSET or a DEL whose part
// for a shard that hangs is refused (the shard holds its share of
// max_in_flight) while its part for a healthy shard is applied answers
// "-ERR backend shard N: OVERLOADED ...", as a shard that fails does, not
// "-OVERLOADED ...": that code is a refusal (nothing ran, back off and
// retry), and the healthy shard's keys were written or deleted. A command
// refused whole still answers -OVERLOADED. Before, the partial write
// answered -OVERLOADED too.
func TestPartialWriteOverShardShareIsNotARefusal(t *testing.T) {
	in, keyOn, finish := holdShard1Share(t, func(hb *hungBackend) Backend { return hb })
	k0, k1, k1b := keyOn(0, 0), keyOn(1, 0), keyOn(1, 1)
	ctx := context.Background()

	c := client(t, in, nil)
	err := c.MSet(ctx, k0, "v", k1, "v").Err()
	require.Error(t, err)
	assert.True(t, strings.HasPrefix(err.Error(), "ERR backend shard 1: OVERLOADED"), "partial MSET: %v", err)
	require.Equal(t, "v", c.Get(ctx, k0).Val(), "shard 0's key was written")

	err = c.Del(ctx, k0, k1).Err()
	require.Error(t, err)
	assert.True(t, strings.HasPrefix(err.Error(), "ERR backend shard 1: OVERLOADED"), "partial DEL: %v", err)
	require.ErrorIs(t, c.Get(ctx, k0).Err(), redis.Nil, "shard 0's key was deleted")

	// Refused whole: nothing ran, a refusal.
	err = c.MSet(ctx, k1, "v", k1b, "v").Err()
	require.Error(t, err)
	assert.True(t, strings.HasPrefix(err.Error(), "OVERLOADED"), "MSET on the held shard alone: %v", err)
	err = c.Exists(ctx, k0, k1).Err()
	require.Error(t, err)
	assert.True(t, strings.HasPrefix(err.Error(), "OVERLOADED"), "EXISTS writes nothing: %v", err)

	finish()
}

// holdShard1Share starts a gateway on two memkv shards with max_in_flight 4
// (a shard's share: 2), its backend wrap(hb) where hb hangs shard 1's calls,
// and fills shard 1's share with GETs held there. keyOn(sh, skip) is the
// key after the first skip of the form k<i> on shard sh; the held GETs read
// keys past the first 100 of shard 1. finish releases them and checks that
// they end (a missing key); it also runs at cleanup, before the shutdown.
func holdShard1Share(t *testing.T, wrap func(*hungBackend) Backend) (in *instance, keyOn func(sh, skip int) string, finish func()) {
	t.Helper()
	const inflight, held = 4, 2
	in = startGateway(t, Config{HTTPAddr: "-", Backend: BackendConfig{Shards: 2}, MaxInFlight: inflight, MaxBatch: 1})
	g := in.gw
	hb := &hungBackend{Backend: g.backend, hold: 1, entered: make(chan struct{}, held), release: make(chan struct{})}
	g.backend = wrap(hb) // before any traffic, as registerChaos does
	var once sync.Once
	unblock := func() { once.Do(func() { close(hb.release) }) }
	t.Cleanup(unblock) // before the gateway's shutdown (cleanups run last first)
	keyOn = func(sh, skip int) string {
		for i := 0; ; i++ {
			if k := fmt.Sprint("k", i); g.shard(k) == sh {
				if skip == 0 {
					return k
				}
				skip--
			}
		}
	}
	got := make(chan error, held)
	for i := range held {
		c := client(t, in, &redis.Options{ReadTimeout: -1})
		k := keyOn(1, 100+i)
		go func() { got <- c.Get(context.Background(), k).Err() }()
		<-hb.entered
	}
	return in, keyOn, func() {
		unblock()
		for range held {
			require.ErrorIs(t, <-got, redis.Nil)
		}
	}
}
