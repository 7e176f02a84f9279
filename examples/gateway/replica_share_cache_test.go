package main

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestCachingTierReplicasTakeNoShare: with the caching tier on, a shard's
// GETs are the tier's fills, which read the primary (a replica may be
// behind the invalidations the primary announced), so no batch goes to a
// replica and a replica's share of max_in_flight is never used. Before,
// the replicas still took a share each: the primaries were held to
// max_in_flight / (shards + shards with replicas), half of what the
// setting gives them with a replica per shard, and a shard answered
// -OVERLOADED with the budget of its replica unused.
func TestCachingTierReplicasTakeNoShare(t *testing.T) {
	primary, replica := startRedis(t), startRedis(t)
	in := startGateway(t, Config{Backend: BackendConfig{Kind: "redis", Redis: []string{primary.addr},
		Replicas: [][]string{{replica.addr}}, Pool: 2},
		CacheCapacity: 100, MaxInFlight: 4})
	g := in.gw
	assert.False(t, g.readsReplica(0, []op{{kind: opGet, key: "k"}}), "the tier's fills read the primary")
	assert.EqualValues(t, 4, g.shardShare.Load(), "one shard, whose replica is never read: the whole budget")
}
