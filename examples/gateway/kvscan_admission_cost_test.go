package main

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// A KVSCAN is admitted at the pairs it may return, its LIMIT (100 by
// default), as an MGET of as many keys (README: cost = keys). It cost 2,
// its two bounds, whatever its LIMIT: a scan of 10,000 pairs per shard was
// admitted where an MGET of 3 keys was refused, and shed's fair share, which
// is by cost, counted a tenant's scans at a sliver of their work.
func TestKVScanAdmittedAtItsLimit(t *testing.T) {
	in := startGateway(t, Config{HTTPAddr: "-", MinLimit: 8, MaxLimit: 8, QueueDeadline: Duration(20 * time.Millisecond)})
	g := in.gw
	ctx := context.Background()
	c := client(t, in, nil)
	require.NoError(t, c.Ping(ctx).Err())
	for _, tt := range []struct {
		give []any
		want int64
	}{
		{[]any{"KVSCAN", "a", "b"}, 100},
		{[]any{"KVSCAN", "a", "b", "LIMIT", "3"}, 3},
		{[]any{"KVSCAN", "a", "b", "limit", "1000"}, 1000},
		{[]any{"KVSCAN", "a", "b", "LIMIT", "1000000"}, maxScan},
		{[]any{"KVSCAN", "a", "b", "LIMIT", "x"}, 0}, // refused before admission
	} {
		s0 := g.shedder.Stats()
		_ = c.Do(ctx, tt.give...).Err()
		s1 := g.shedder.Stats()
		require.Equal(t, tt.want, s1.AdmittedCost-s0.AdmittedCost, "%v", tt.give)
	}

	// Another tenant's work holds all of the capacity but 2: a scan of
	// 1,000 pairs does not fit, as an MGET of 3 keys does not.
	release, err := g.shedder.Acquire(ctx, "other", 0, 6)
	require.NoError(t, err)
	defer release()
	require.ErrorContains(t, c.MGet(ctx, "a", "b", "c").Err(), "OVERLOADED", "MGET past the free capacity")
	require.ErrorContains(t, c.Do(ctx, "KVSCAN", "a", "b", "LIMIT", "1000").Err(), "OVERLOADED", "KVSCAN of 1,000 pairs")
	require.NoError(t, c.Do(ctx, "KVSCAN", "a", "b", "LIMIT", "2").Err(), "a scan of 2 pairs fits")
}
