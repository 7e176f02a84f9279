package main

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestPipelineConnectionLostBeforePTTL: a mixed batch whose connection is
// lost after the shard answered a GET and before the PTTL that follows it
// (the caching tier's fill on a shard with expiries) fails the whole batch,
// as getsWithTTL does and as go-redis's pipeline does. Before, rueidis's
// pipeline read the lost PTTL as "expire at once": the GET, whose key
// exists, answered null, and the shard was counted as answering.
func TestPipelineConnectionLostBeforePTTL(t *testing.T) {
	addr := fakeShard(t, "PTTL", 0)
	fast, slow := newFastShard(addr, 1, redisAuth{}), newShardClient(addr, 1, redisAuth{})
	defer fast.close()
	defer slow.Close()
	for _, tc := range []struct {
		name string
		d    dataClient
	}{
		{"rueidis", fast},
		{"go-redis", goredisData{slow}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ops := []op{{kind: opSet, key: "a", value: []byte("1")}, {kind: opGet, key: "b"}}
			out := make([]opResult, len(ops))
			err := tc.d.pipeline(context.Background(), ops, out, true)
			assert.Error(t, err, "results: %+v", out)
			if err != nil {
				assert.False(t, tc.d.replyErr(err), "%v", err)
			}
		})
	}
}
