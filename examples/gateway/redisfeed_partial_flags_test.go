package main

import (
	"context"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestRedisCachingTierPartialNotificationsRecover: an application sets the
// shard's notify-keyspace-events to a part of the keyspace classes ("K$":
// string commands on the keyspace channel). The markers stop, as they must
// (a DEL or an EXPIRE is announced to nobody), but the feed still receives
// the string writes' notifications, so it never stays silent for
// feedReadTimeout and never resubscribes, which was what turned the flags on
// again: the shard's cache served no hit for as long as the shard took
// string writes.
func TestRedisCachingTierPartialNotificationsRecover(t *testing.T) {
	const bound = 40 * time.Millisecond
	in, direct := redisCachingGateway(t, bound)
	ctx := context.Background()
	syncFeed(t, in)

	require.NoError(t, direct.ConfigSet(ctx, "notify-keyspace-events", "K$").Err())
	// A busy shard: a string write every few milliseconds, each announced
	// on the keyspace channel, keeps the feed's connection from going silent.
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			case <-time.After(5 * time.Millisecond):
			}
			_ = direct.Set(ctx, "busy", strconv.Itoa(i), 0).Err()
		}
	}()
	defer func() { close(stop); <-done }()

	// Past feedReadTimeout (5 s), the flags must cover every change again
	// and markers vouch for the cache.
	eventuallyWithin(t, 30*time.Second, "the shard's cache never served hits again", func() bool {
		flags, err := direct.ConfigGet(ctx, "notify-keyspace-events").Result()
		return err == nil && notificationsCover(flags["notify-keyspace-events"]) &&
			in.gw.cache.caches[0].Load().CheckpointAge() <= bound
	})
}
