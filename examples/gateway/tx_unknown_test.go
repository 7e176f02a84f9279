package main

import (
	"context"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/memkv"
)

// TestExecUnknownOutcomeInvalidatesCache: an EXEC whose commit outcome is
// unknown (applied, reply lost) may have replaced the values of the keys it
// writes, so the caching tier must not keep serving the values it held
// before: it drops them as after a commit, and the next GET reads the
// store. The tier here has no change feed (a feed that is behind), so only
// EXEC's own invalidation can keep the read fresh.
func TestExecUnknownOutcomeInvalidatesCache(t *testing.T) {
	in := startGateway(t, Config{Backend: BackendConfig{Shards: 2}, HTTPAddr: "-"})
	g := in.gw
	ct, err := newCacheTier(g.backend.Shards(), 1000, time.Hour)
	require.NoError(t, err)
	g.cache = ct // before any traffic, as registerChaos does; closed by the gateway
	ctx := context.Background()
	c := client(t, in, nil)
	const k = "{u}k"
	require.NoError(t, c.Set(ctx, k, "v1", 0).Err())
	require.Equal(t, "v1", c.Get(ctx, k).Val())
	require.True(t, ct.contains(g.shard(k), k), "the GET filled the cache")

	st := mustMemkv(t, g.backend).stores[g.shard(k)]
	cfg := st.Config()
	cfg.Faults.DropReply = func(*memkv.CommitRequest) bool { return true }
	require.NoError(t, st.SetConfig(cfg))
	_, err = c.TxPipelined(ctx, func(p redis.Pipeliner) error {
		p.Set(ctx, k, "v2", 0)
		return nil
	})
	require.ErrorContains(t, err, "unknown", "the commit's outcome is unknown")
	cfg.Faults.DropReply = nil
	require.NoError(t, st.SetConfig(cfg))

	require.Equal(t, "v2", c.Get(ctx, k).Val(), "the commit was applied: the cache must not serve the value it replaced")
}
