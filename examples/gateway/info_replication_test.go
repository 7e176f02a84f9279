package main

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestInfoReplicationAsMaster: INFO has the Replication section Redis has,
// read by monitoring tools (redis_exporter's role, GUIs that show a node's
// role) and by clients that check they talk to a writable node: the gateway
// accepts writes, so it answers as a master with no replicas of its own
// (its shards' replicas are behind it). Without it those tools found no
// role and reported an unknown one.
func TestInfoReplicationAsMaster(t *testing.T) {
	in := startGateway(t, Config{HTTPAddr: "-"})
	c := client(t, in, nil)
	for _, args := range [][]string{{"replication"}, {"REPLICATION", "server"}, {}} {
		m, err := c.InfoMap(context.Background(), args...).Result()
		require.NoError(t, err)
		require.Contains(t, m, "Replication", "INFO %v", args)
		require.Equal(t, "master", m["Replication"]["role"])
		require.Equal(t, "0", m["Replication"]["connected_slaves"])
	}
	m, err := c.InfoMap(context.Background(), "server").Result()
	require.NoError(t, err)
	require.NotContains(t, m, "Replication", "a section not asked for")
}
