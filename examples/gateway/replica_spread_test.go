package main

import (
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestPickReplicaSpreadsEvenlyPastADownOne: with one of a shard's three
// replicas down, its reads spread evenly over the two that are up. The
// round robin once sent a down replica's turn to the replica after it, which
// then took two reads in three and the other one.
func TestPickReplicaSpreadsEvenlyPastADownOne(t *testing.T) {
	for down := range 3 {
		b := &redisBackend{dataReplicas: [][]*replica{{{index: 0}, {index: 1}, {index: 2}}}, next: make([]atomic.Uint32, 1), log: discardLogger}
		now := time.Unix(1000, 0)
		r := b.dataReplicas[0][down]
		r.health.down.Store(true)
		r.retry.Store(now.Add(time.Hour).UnixNano()) // not due during the test
		counts := make([]int, 3)
		for range 600 {
			p := b.pickReplica(0, now)
			require.NotNil(t, p)
			counts[p.index]++
		}
		want := []int{300, 300, 300}
		want[down] = 0
		require.Equal(t, want, counts, "replica %d down", down)
	}
}
