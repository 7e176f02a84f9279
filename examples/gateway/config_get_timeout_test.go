package main

import (
	"context"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"
)

// TestConfigGetTimeoutIsIdleTimeout: CONFIG GET timeout answers the
// gateway's idle_timeout in whole seconds (at least 1), as Redis answers its
// own: the seconds after which an idle client is closed. It answered 0
// (Redis's "never"), while the gateway closes a connection idle for
// idle_timeout (5 minutes by default), so a client that reads it to keep its
// pooled connections alive was told it need not.
//
// An idle_timeout under a second is asked of configValue, not over a
// connection: the gateway closes a connection that is silent that long, and
// on a loaded machine the client's first command could come later (an
// idle_timeout of 1 ms reset the connection in 1 run of 10 beside a busy
// loop).
func TestConfigGetTimeoutIsIdleTimeout(t *testing.T) {
	for _, tc := range []struct {
		idle Duration
		want string
	}{{0, "300"}, {Duration(90 * time.Second), "90"}, {Duration(1500 * time.Millisecond), "1"}} {
		in := startGateway(t, Config{HTTPAddr: "-", Limits: Limits{IdleTimeout: tc.idle}})
		c := client(t, in, &redis.Options{Protocol: 2})
		got, err := c.ConfigGet(context.Background(), "timeout").Result()
		require.NoError(t, err)
		require.Equal(t, map[string]string{"timeout": tc.want}, got, "idle_timeout %v", time.Duration(tc.idle))
	}
	for _, idle := range []time.Duration{time.Millisecond, 999 * time.Millisecond} {
		s := &session{g: &Gateway{cfg: Config{Limits: Limits{IdleTimeout: Duration(idle)}}}}
		require.Equal(t, "1", configValue(s, [2]string{"timeout", ""}), "idle_timeout %v", idle)
	}
}
