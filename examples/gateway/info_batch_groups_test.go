package main

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// infoServerTime returns the least mean time of one INFO SERVER of s over
// rounds of 50: the least, so that a round the host slowed does not count.
func infoServerTime(s *session) time.Duration {
	args := [][]byte{[]byte("INFO"), []byte("server")}
	best := time.Duration(1 << 62)
	for range 5 {
		start := time.Now()
		for range 50 {
			cmdInfo(context.Background(), s, args)
		}
		best = min(best, time.Since(start)/50)
	}
	return best
}

// TestInfoCostFlatInBatchGroups: every INFO, whatever its sections, reads
// the batcher's Stats, which walked every group (one per tenant x shard),
// each of the batcher's 64 shards locked in turn (as a batch is opened) for
// its part of the walk, to count the items pending. With 10,000 tenants
// sending to 4 shards, INFO SERVER took 67 times as long as with 10 (391
// against 5.9 us). Its cost must not grow with the groups held.
func TestInfoCostFlatInBatchGroups(t *testing.T) {
	ctx := context.Background()
	sessions := map[int]*session{}
	for _, n := range []int{10, 10_000} {
		s := scaleSession(t, n)
		for name := range s.g.tenants {
			for sh := range s.g.backend.Shards() {
				_, err := s.g.submitOne(ctx, group{tenant: name, shard: sh}, op{kind: opGet, key: "k"})
				require.NoError(t, err)
			}
		}
		require.Equal(t, n*s.g.backend.Shards(), s.g.batches.Stats().LiveGroups)
		sessions[n] = s
	}
	small, large := infoServerTime(sessions[10]), infoServerTime(sessions[10_000])
	t.Logf("INFO SERVER: 40 batch groups %v, 40,000 %v", small, large)
	require.Less(t, large, 5*small, "INFO's cost grows with the batch groups held")
}
