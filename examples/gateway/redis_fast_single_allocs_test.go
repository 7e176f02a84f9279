package main

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestFastSingleOpAllocs holds a rueidis batch of one SET, the common batch
// of SETs at pipeline 1, to the allocations of the command itself: sent with
// DoMulti, it also allocated a slice of commands and rueidis's slice of
// results (and the struct around it) on every batch.
func TestFastSingleOpAllocs(t *testing.T) {
	r := startRedis(t)
	f := newFastShard(r.addr, 1, redisAuth{})
	t.Cleanup(f.close)
	ctx := context.Background()
	ops := []op{{kind: opSet, key: "k", value: []byte("v")}}
	out := make([]opResult, 1)
	require.NoError(t, f.pipeline(ctx, ops, out, false)) // dials
	allocs := testing.AllocsPerRun(200, func() {
		out[0] = opResult{}
		if err := f.pipeline(ctx, ops, out, false); err != nil || !out[0].found {
			t.Fatalf("SET: %v, %+v", err, out[0])
		}
	})
	t.Logf("%.2f allocations per batch of one SET", allocs)
	assert.LessOrEqual(t, allocs, 0.0)
}
