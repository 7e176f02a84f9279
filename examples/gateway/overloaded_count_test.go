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

// blockingBackend holds every call to shard `hold` until release is closed.
type blockingBackend struct {
	Backend
	hold    int
	entered chan struct{}
	release chan struct{}
	once    sync.Once
}

func (b *blockingBackend) Do(ctx context.Context, shard int, ops []op, out []opResult) error {
	if shard == b.hold {
		b.once.Do(func() { close(b.entered) })
		<-b.release
	}
	return b.Backend.Do(ctx, shard, ops, out)
}

// gateway_overloaded_total says "Commands refused by admission, the
// batcher's in-flight cap or a shard's share of it", and INFO/control's
// "overloaded" likewise; a pipeline of 8 GETs refused by the in-flight cap
// counts once.
func TestOverloadedCountsCommands(t *testing.T) {
	in := startGateway(t, Config{Backend: BackendConfig{Shards: 2}, MaxInFlight: 1})
	g := in.gw
	bb := &blockingBackend{Backend: g.backend, hold: 0, entered: make(chan struct{}), release: make(chan struct{})}
	g.backend = bb // before any traffic, as registerChaos does
	ctx := context.Background()
	// Keys of each shard.
	var k0 string
	var k1 []string
	for i := 0; k0 == "" || len(k1) < 8; i++ {
		k := fmt.Sprint("k", i)
		if g.shard(k) == 0 && k0 == "" {
			k0 = k
		} else if g.shard(k) == 1 && len(k1) < 8 {
			k1 = append(k1, k)
		}
	}
	a := client(t, in, nil)
	done := make(chan error, 1)
	go func() { done <- a.Set(ctx, k0, "v", 0).Err() }()
	<-bb.entered // shard 0's batch is in flight: the cap (1) is reached

	b := client(t, in, nil)
	cmds, _ := b.Pipelined(ctx, func(p redis.Pipeliner) error {
		for _, k := range k1 {
			p.Get(ctx, k)
		}
		return nil
	})
	refused := 0
	for _, c := range cmds {
		if err := c.Err(); err != nil && strings.HasPrefix(err.Error(), "OVERLOADED") {
			refused++
		}
	}
	close(bb.release)
	require.NoError(t, <-done)
	require.Equal(t, 8, refused)
	require.Equal(t, uint64(refused), g.n.overloaded.Load(), "commands answered OVERLOADED vs the overloaded counter")
	// INFO's stats had shed_total, throttled_total and denied_total but no
	// count of these refusals, which /metrics and /control show (found by a
	// review).
	require.Contains(t, client(t, in, nil).Info(ctx, "stats").Val(), fmt.Sprintf("overloaded_total:%d\r\n", refused))
}
