package main

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestKVScanOnRedisNotAdmitted: on Redis shards KVSCAN is refused at once
// (Redis keeps no key order), before admission, as a malformed one is
// (cmdSpec.check). It was admitted at its LIMIT: under load a scan that
// reads nothing answered -OVERLOADED in place of its error, and one past
// the whole limit waited for the gateway to drain; then at 1, and it still
// answered -OVERLOADED while the whole limit was held.
func TestKVScanOnRedisNotAdmitted(t *testing.T) {
	r := startRedis(t)
	in := startGateway(t, Config{HTTPAddr: "-", MinLimit: 8, MaxLimit: 8, QueueDeadline: Duration(20 * time.Millisecond),
		Backend: BackendConfig{Kind: "redis", Redis: []string{r.addr}}})
	g := in.gw
	ctx := context.Background()
	c := client(t, in, nil)
	require.NoError(t, c.Ping(ctx).Err())
	s0 := g.shedder.Stats()
	require.ErrorContains(t, c.Do(ctx, "KVSCAN", "a", "b").Err(), "needs the memkv backend")
	require.Zero(t, g.shedder.Stats().AdmittedCost-s0.AdmittedCost, "admitted cost")

	// Another tenant's work holds all of the capacity.
	release, err := g.shedder.Acquire(ctx, "other", 0, 8)
	require.NoError(t, err)
	defer release()
	require.ErrorContains(t, c.Do(ctx, "KVSCAN", "a", "b", "LIMIT", "1000").Err(), "needs the memkv backend")
}
