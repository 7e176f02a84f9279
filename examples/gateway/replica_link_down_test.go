package main

import (
	"context"
	"strings"
	"testing"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestReplicaLinkDownServesStaleUnseen: a replica whose link to its primary
// is down and stays down (here the primary refuses it PSYNC, as it would a
// replica without the right masterauth, or one cut off from its primary)
// serves the data set it had, for as long as the link stays down, not only
// for the length of a sync: with Redis's default replica-serve-stale-data
// yes, the gateway's reads spread to it answer a value the primary replaced,
// and gateway_backend_replica_up stays 1 (the replica answers). With
// replica-serve-stale-data no it answers MASTERDOWN: the reads go to the
// primary and the replica shows down. The README says both.
func TestReplicaLinkDownServesStaleUnseen(t *testing.T) {
	eachClient(t, func(t *testing.T, kind string) {
		primary := startRedis(t, "--repl-diskless-sync-delay", "0")
		host, port, _ := strings.Cut(primary.addr, ":")
		// Its own dir: the syncs it retries leave temp files there.
		replica := startRedis(t, "--replicaof", host, port, "--dir", t.TempDir())
		in := startGateway(t, Config{Backend: BackendConfig{Kind: "redis", Redis: []string{primary.addr},
			Replicas: [][]string{{replica.addr}}, Pool: 1, Client: kind}})
		ctx := context.Background()
		c := client(t, in, nil)
		require.NoError(t, c.Set(ctx, "rk", "old", 0).Err())
		eventually(t, "the key did not reach the replica", func() bool {
			return replica.info(t, "replication", "master_link_status") == "up" && c.Get(ctx, "rk").Val() == "old"
		})

		// Cut the link for good: the primary refuses the replica's PSYNC.
		pc := redis.NewClient(&redis.Options{Addr: primary.addr, MaxRetries: -1})
		defer pc.Close()
		require.NoError(t, pc.Do(ctx, "ACL", "SETUSER", "default", "-psync", "-sync").Err())
		require.NoError(t, pc.Do(ctx, "CLIENT", "KILL", "TYPE", "replica").Err())
		eventually(t, "the replica's link did not go down", func() bool {
			return replica.info(t, "replication", "master_link_status") == "down"
		})
		require.NoError(t, c.Set(ctx, "rk", "new", 0).Err()) // acknowledged by the primary

		labels := map[string]string{"shard": "0", "replica": "0", "addr": replica.addr}
		up := func() float64 {
			m := series(t, in.gw, "gateway_backend_replica_up", labels)
			require.NotNil(t, m, "gateway_backend_replica_up")
			return m.GetGauge().GetValue()
		}
		for range 5 {
			v, err := c.Get(ctx, "rk").Result()
			require.NoError(t, err)
			assert.Equal(t, "old", v, "read on the replica whose link is down")
		}
		assert.Equal(t, 1.0, up(), "nothing shows the replica's stale reads")

		rc := redis.NewClient(&redis.Options{Addr: replica.addr, MaxRetries: -1})
		defer rc.Close()
		require.NoError(t, rc.ConfigSet(ctx, "replica-serve-stale-data", "no").Err())
		for range 5 {
			v, err := c.Get(ctx, "rk").Result()
			require.NoError(t, err)
			assert.Equal(t, "new", v, "the replica refuses (MASTERDOWN): read on the primary")
		}
		assert.Equal(t, 0.0, up(), "the refusing replica shows down")
		assert.Equal(t, "down", replica.info(t, "replication", "master_link_status"), "the link stayed down")
	})
}
