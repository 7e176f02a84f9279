package main

import (
	"context"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"
)

// An EXEC whose request_timeout (which bounds it whole) passes while it
// waits in shed's queue was not admitted, nothing of it ran: it is a
// refusal, -OVERLOADED (README), its data commands counted shed as a
// refused pipelined run's are. It answered "ERR context deadline
// exceeded", the README's error of a call of unknown outcome, and counted
// in no shed count; so did a WATCH on Redis shards, admitted as a read.
func TestExecQueuedPastRequestTimeoutIsShed(t *testing.T) {
	in := startGateway(t, Config{HTTPAddr: "-", MinLimit: 8, MaxLimit: 8,
		RequestTimeout: Duration(20 * time.Millisecond), QueueDeadline: Duration(time.Second)})
	checkQueuedPastTimeoutShed(t, in, false)
}

func TestRedisWatchQueuedPastRequestTimeoutIsShed(t *testing.T) {
	r := startRedis(t)
	in := startGateway(t, Config{HTTPAddr: "-", MinLimit: 8, MaxLimit: 8,
		RequestTimeout: Duration(20 * time.Millisecond), QueueDeadline: Duration(time.Second),
		Backend: BackendConfig{Kind: "redis", Redis: []string{r.addr}, Pool: 2}})
	checkQueuedPastTimeoutShed(t, in, true)
}

// checkQueuedPastTimeoutShed runs, while another tenant holds all of the
// capacity, a transaction of two SETs (and with watch a WATCH before it,
// which Redis shards admit) and checks each refusal is a shed, counted once
// per command.
func checkQueuedPastTimeoutShed(t *testing.T, in *instance, watch bool) {
	g := in.gw
	ctx := context.Background()
	c := client(t, in, nil)
	require.NoError(t, c.Ping(ctx).Err())
	release, err := g.shedder.Acquire(ctx, "other", 0, 8)
	require.NoError(t, err)
	defer release()
	ten := g.tenants["default"]
	require.NotNil(t, ten)

	if watch {
		shed0, over0 := g.n.shed.Load(), g.n.overloaded.Load()
		conn := c.Conn()
		defer conn.Close()
		require.ErrorContains(t, conn.Do(ctx, "WATCH", "{t}a", "{t}b").Err(), "OVERLOADED request shed", "WATCH")
		require.Equal(t, shed0+1, g.n.shed.Load(), "the WATCH counted shed once")
		require.Equal(t, over0, g.n.overloaded.Load())
	}
	shed0, tshed0, over0 := g.n.shed.Load(), ten.shed.Load(), g.n.overloaded.Load()
	_, err = c.TxPipelined(ctx, func(p redis.Pipeliner) error {
		p.Set(ctx, "{t}a", "1", 0)
		p.Set(ctx, "{t}b", "1", 0)
		return nil
	})
	require.ErrorContains(t, err, "OVERLOADED request shed", "EXEC")
	require.Equal(t, shed0+2, g.n.shed.Load(), "gateway_shed_total counts each SET once")
	require.Equal(t, tshed0+2, ten.shed.Load(), "the tenant's shed count too")
	require.Equal(t, over0, g.n.overloaded.Load(), "not overloaded as well")
}
