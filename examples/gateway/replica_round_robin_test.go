package main

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestReplicaRoundRobinPerShard: each shard's batches of GETs spread round
// robin over its own replicas, whatever the other shards' reads. Before, one
// counter served every shard: a client whose reads alternate between two
// shards (an MGET over both, say) sent all of a shard's reads to one of its
// two replicas and none to the other.
func TestReplicaRoundRobinPerShard(t *testing.T) {
	eachClient(t, func(t *testing.T, kind string) {
		const shards, perShard, reads = 2, 2, 20
		var primaries []string
		replicas := make([][]*redisServer, shards)
		addrs := make([][]string, shards)
		for i := range shards {
			primaries = append(primaries, startRedis(t).addr)
			for range perShard {
				r := startRedis(t) // stands for a replica: the keys read are missing everywhere
				replicas[i] = append(replicas[i], r)
				addrs[i] = append(addrs[i], r.addr)
			}
		}
		in := startGateway(t, Config{Backend: BackendConfig{Kind: "redis", Redis: primaries, Replicas: addrs, Pool: 1, Client: kind}})
		keyOn := map[int]string{}
		for i := 0; len(keyOn) < shards; i++ {
			k := fmt.Sprint("key", i)
			keyOn[in.gw.shard(k)] = k
		}
		ctx := context.Background()
		c := client(t, in, nil)
		for range reads {
			vals, err := c.MGet(ctx, keyOn[0], keyOn[1]).Result() // one batch per shard
			require.NoError(t, err)
			require.Equal(t, []any{nil, nil}, vals)
		}
		for i := range shards {
			for j, r := range replicas[i] {
				v := r.info(t, "commandstats", "cmdstat_mget")
				calls, _, _ := strings.Cut(strings.TrimPrefix(v, "calls="), ",")
				assert.Equal(t, fmt.Sprint(reads/perShard), calls, "MGETs on replica %d of shard %d", j, i)
			}
		}
	})
}
