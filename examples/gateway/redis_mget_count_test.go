package main

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestMGetWrongCountFailsBatch: a shard (a proxy in front of it, a fake)
// whose MGET reply holds more or fewer values than the keys asked fails
// the batch with a *mgetCountError, on both clients and on both MGET paths
// (the plain batch of GETs and the caching tier's, with the PTTLs). Only
// rueidis's plain path checked: a longer reply indexed past the results
// (a panic, closing the client's connection) and a shorter one left the
// last keys' results as they were, answered as missing although the keys
// were there.
func TestMGetWrongCountFailsBatch(t *testing.T) {
	keys := []string{"a", "b", "c"}
	for _, extra := range []int{-1, 1} {
		addr := fakeShard(t, "", extra)
		fast, slow := newFastShard(addr, 1, redisAuth{}), newShardClient(addr, 1, redisAuth{})
		t.Cleanup(func() { fast.close(); _ = slow.Close() })
		for _, tc := range []struct {
			name string
			d    dataClient
		}{
			{"rueidis", fast},
			{"go-redis", goredisData{slow}},
		} {
			for _, path := range []string{"mget", "getsWithTTL"} {
				t.Run(fmt.Sprintf("%s/%s/%+d", tc.name, path, extra), func(t *testing.T) {
					out := make([]opResult, len(keys))
					var err error
					require.NotPanics(t, func() {
						if path == "mget" {
							err = tc.d.mget(context.Background(), keys, out)
						} else {
							err = tc.d.getsWithTTL(context.Background(), keys, out)
						}
					})
					var ce *mgetCountError
					require.True(t, errors.As(err, &ce), "err %v, results %+v", err, out)
					assert.Equal(t, mgetCountError{keys: len(keys), vals: len(keys) + extra}, *ce)
					assert.False(t, tc.d.replyErr(err), "the batch fails, not each GET with the shard's reply")
				})
			}
		}
	}
}
