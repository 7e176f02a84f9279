package main

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"
)

// The marker loop does nothing while the shard's feed is down. A shard that
// restarted comes back with its own flags (none), which the feed's next
// subscription sets; a marker check that came first warned that the
// notifications no longer covered every change, a second warning for one
// outage (TestRedisCachedPipelineShardDown failed on it now and then).
func TestMarkWaitsForTheFeed(t *testing.T) {
	r := startRedis(t)
	ctx := context.Background()
	c := redis.NewClient(&redis.Options{Addr: r.addr})
	defer c.Close()
	require.NoError(t, c.ConfigSet(ctx, "notify-keyspace-events", "").Err())
	sub := c.Subscribe(ctx, "marker")
	defer sub.Close()
	_, err := sub.Receive(ctx) // the subscription's confirmation
	require.NoError(t, err)

	var logs bytes.Buffer
	ct, err := newCacheTier(1, 100, time.Second)
	require.NoError(t, err)
	ct.log = slog.New(slog.NewJSONHandler(&logs, nil))
	b := &redisBackend{volatile: make([]expiryFlag, 1)}
	var m markerState
	tests := []struct {
		name    string
		feedUp  bool
		warning bool
	}{
		{"feed down: no check, no warning", false, false},
		{"feed up: the flags are checked", true, true},
	}
	for _, tt := range tests {
		logs.Reset()
		m.feedUp.Store(tt.feedUp)
		ct.mark(ctx, b, 0, c, "marker", &m)
		require.Equal(t, tt.warning, strings.Contains(logs.String(), "no longer cover every change"), "%s: %s", tt.name, logs.String())
	}
	// With the flags set again, the next check publishes a marker.
	require.NoError(t, c.ConfigSet(ctx, "notify-keyspace-events", "KEA").Err())
	ct.mark(ctx, b, 0, c, "marker", &m)
	require.Contains(t, logs.String(), "cover every change again")
	msg, err := sub.ReceiveMessage(ctx)
	require.NoError(t, err)
	require.Equal(t, "marker", msg.Channel)
}
