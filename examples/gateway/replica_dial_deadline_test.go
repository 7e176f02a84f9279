//go:build linux

package main

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestReplicaUnansweredDialFallsBackToPrimary: a replica whose connection
// attempts go unanswered (its host is down or cut off) when the gateway first
// reads from it takes at most half the time left of the reads routed to it,
// as a replica that hangs does, and the primary answers them within the
// request timeout. On rueidis the first dial of a server ran to its own
// timeout (500 ms by default) whatever the batch's deadline, so a request
// timeout no longer than the dial timeout left the primary no time: every
// read of the shard failed while its primary was up.
//
// Both timeouts are 1 s here: the primary has half a second, where with a
// 300 ms request timeout its 150 ms were sometimes too little on a busy
// host (the race detector beside other packages' tests on 2 cores).
func TestReplicaUnansweredDialFallsBackToPrimary(t *testing.T) {
	eachClient(t, func(t *testing.T, kind string) {
		primary := startRedis(t)
		replica := unanswered(t)
		const timeout = time.Second
		in := startGateway(t, Config{Backend: BackendConfig{Kind: "redis", Redis: []string{primary.addr},
			Replicas: [][]string{{replica}}, Pool: 1, Client: kind, DialTimeout: Duration(timeout)},
			RequestTimeout: Duration(timeout)})
		ctx := context.Background()
		c := client(t, in, nil)
		// The first command dials the primary within its request timeout,
		// which a busy host can exceed (rueidis's dial goes on for the next):
		// it is setup, so it is sent again until the key is stored.
		eventually(t, "the primary did not take the key", func() bool { return c.Set(ctx, "rk", "v", 0).Err() == nil })
		for range 2 {
			start := time.Now()
			v, err := c.Get(ctx, "rk").Result()
			require.NoError(t, err, "the primary answers while the replica's dials go unanswered")
			assert.Equal(t, "v", v)
			assert.Less(t, time.Since(start), timeout)
		}
		assert.False(t, in.gw.health[0].down.Load(), "the shard is not marked down")
	})
}
