package main

import (
	"context"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"
)

// TestExecAfterWatchedKeyExpired: Redis 7 answers EXEC with null when a
// watched key that was live at WATCH has expired by EXEC, deleted or not
// (isWatchedKeyExpired). On memkv an expiry is no version of the key until
// the expiry sweep or a write deletes it, so EXEC committed: a lock taken
// with SET PX and checked with WATCH was taken over by a client whose
// WATCH saw the old holder's lock. Explicit time: the backend's clock.
func TestExecAfterWatchedKeyExpired(t *testing.T) {
	in := startGateway(t, Config{HTTPAddr: "-"})
	_, clock := setMemkvClock(t, in.gw.backend, time.Now())
	ctx := context.Background()
	const k, other = "{e}lock", "{e}x"
	c := client(t, in, nil)
	run := func(expire bool) (any, error) {
		require.NoError(t, c.Set(ctx, k, "holder", 2*time.Second).Err())
		cn := c.Conn()
		defer cn.Close()
		require.NoError(t, cn.Do(ctx, "WATCH", k).Err())
		require.NoError(t, cn.Do(ctx, "MULTI").Err())
		require.Equal(t, "QUEUED", cn.Do(ctx, "SET", other, "1").Val())
		if expire {
			clock.Add(int64(3 * time.Second)) // the lock's TTL runs out before EXEC
		}
		return cn.Do(ctx, "EXEC").Result()
	}
	res, err := run(false)
	require.NoError(t, err)
	require.Equal(t, []any{"OK"}, res, "the watched key is live at EXEC: it commits")

	_, err = run(true)
	require.ErrorIs(t, err, redis.Nil, "a watched key expired since WATCH: EXEC answers null")
}
