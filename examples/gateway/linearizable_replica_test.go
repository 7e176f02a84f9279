package main

import (
	"context"
	"testing"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// With linearizable_reads on, a GET read a Redis shard's replica like any
// other, so a replica behind its primary answered a value older than one
// the primary had already served (and acknowledged to its writer): the
// setting's promise, no read older than a write another client already
// saw, did not hold with replicas. Its GETs read the primary now; with it
// off they still spread over the replicas.
func TestLinearizableReadsSkipReplicas(t *testing.T) {
	eachClient(t, func(t *testing.T, kind string) {
		primary, replica, _ := staleReplica(t, "k", "old", "new")
		ctx := context.Background()

		for _, lin := range []bool{true, false} {
			in := startGateway(t, Config{LinearizableReads: lin, Backend: BackendConfig{Kind: "redis",
				Redis: []string{primary}, Replicas: [][]string{{replica}}, Client: kind}})
			c := client(t, in, &redis.Options{PoolSize: 1})
			seen := map[string]int{}
			for range 8 { // round robin over the primary and its replica
				v, err := c.Get(ctx, "k").Result()
				require.NoError(t, err)
				seen[v]++
				vals, err := c.MGet(ctx, "k", "j").Result()
				require.NoError(t, err)
				seen[vals[0].(string)]++
			}
			if lin {
				assert.Equal(t, map[string]int{"new": 16}, seen, "linearizable_reads: every GET reads the primary")
			} else {
				assert.Positive(t, seen["old"], "by default GETs spread over the replicas: %v", seen)
			}
		}
	})
}
