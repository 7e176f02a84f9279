package main

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// infoServerTimes returns the least mean time of one INFO SERVER of a and of
// b over 9 rounds of 50 each, a round of a then one of b: the least, so that
// a round the host slowed does not count, and alternating, so that a slow
// spell of the host falls on both.
func infoServerTimes(a, b *session) (ta, tb time.Duration) {
	args := [][]byte{[]byte("INFO"), []byte("server")}
	round := func(s *session) time.Duration {
		start := time.Now()
		for range 50 {
			cmdInfo(context.Background(), s, args)
		}
		return time.Since(start) / 50
	}
	ta, tb = time.Duration(1<<62), time.Duration(1<<62)
	for range 9 {
		ta, tb = min(ta, round(a)), min(tb, round(b))
	}
	return ta, tb
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
	small, large := infoServerTimes(sessions[10], sessions[10_000])
	t.Logf("INFO SERVER: 40 batch groups %v, 40,000 %v", small, large)
	// The walk made it 67 times as long; 15 leaves room for a noisy host
	// (the test runs under -race beside other packages in CI).
	require.Less(t, large, 15*small, "INFO's cost grows with the batch groups held")
}
