package main

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"
)

// hungBackend holds every call to shard `hold` until release is closed (a
// shard that accepts requests and never answers), announcing each on
// entered.
type hungBackend struct {
	Backend
	hold    int
	entered chan struct{}
	release chan struct{}
}

func (b *hungBackend) Do(ctx context.Context, shard int, ops []op, out []opResult) error {
	if shard == b.hold {
		b.entered <- struct{}{}
		<-b.release
	}
	return b.Backend.Do(ctx, shard, ops, out)
}

// TestHungShardLeavesOthersTheirShare: a shard that hangs holds at most its
// share of max_in_flight (max_in_flight / shards), so requests for the other
// shards still find room in the in-flight budget: a hung shard fails only its
// own keys, as a shard that is down does.
func TestHungShardLeavesOthersTheirShare(t *testing.T) {
	const inflight, hung = 4, 6
	in := startGateway(t, Config{Backend: BackendConfig{Shards: 2}, MaxInFlight: inflight, MaxBatch: 1})
	g := in.gw
	hb := &hungBackend{Backend: g.backend, hold: 0, entered: make(chan struct{}, hung), release: make(chan struct{})}
	g.backend = hb // before any traffic, as registerChaos does
	var once sync.Once
	unblock := func() { once.Do(func() { close(hb.release) }) }
	t.Cleanup(unblock) // before the gateway's shutdown (cleanups run last first)
	var k0 []string
	k1 := ""
	for i := 0; len(k0) < hung || k1 == ""; i++ {
		k := fmt.Sprint("k", i)
		if g.shard(k) == 0 && len(k0) < hung {
			k0 = append(k0, k)
		} else if g.shard(k) == 1 && k1 == "" {
			k1 = k
		}
	}
	ctx := context.Background()
	// hung GETs of shard 0, each its own batch (max_batch 1): each either
	// enters the hung backend or is refused at once.
	refused := make(chan error, hung)
	for _, k := range k0 {
		c := client(t, in, &redis.Options{ReadTimeout: -1})
		go func() { refused <- c.Get(ctx, k).Err() }()
	}
	entered, overloaded := 0, 0
	for entered+overloaded < hung {
		select {
		case <-hb.entered:
			entered++
		case err := <-refused:
			require.Error(t, err)
			require.True(t, strings.HasPrefix(err.Error(), "OVERLOADED"), "%v", err)
			overloaded++
		}
	}
	require.LessOrEqual(t, entered, inflight/2, "the hung shard holds at most its share of max_in_flight")

	// The other shard is served while shard 0 hangs.
	c := client(t, in, nil)
	require.ErrorIs(t, c.Get(ctx, k1).Err(), redis.Nil, "a healthy shard's key is served, not refused")
	require.NoError(t, c.Set(ctx, k1, "v", 0).Err())
	require.Equal(t, "v", c.Get(ctx, k1).Val())

	unblock()
	for range entered {
		require.ErrorIs(t, <-refused, redis.Nil)
	}
}
